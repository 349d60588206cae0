import * as t from '../../db/schema/index.ts'
import { defineEntity, manyToOne, oneToMany } from '../registry.ts'

const SECRET = { queryable: false, package: 'security', resource: 'api.security' } as const

export const iamEntities = [
  defineEntity({ name: 'Role', platform: true, package: 'security', table: t.roles, resource: 'api.roles' }),
  defineEntity({
    name: 'UserGroup',
    platform: true,
    package: 'security',
    table: t.userGroups,
    resource: 'api.groups',
    fields: { builtIn: { readOnly: true } },
    relations: { groupRoles: oneToMany('GroupRole', 'group'), members: oneToMany('GroupMember', 'group') },
  }),
  defineEntity({
    name: 'GroupRole',
    platform: true,
    package: 'security',
    table: t.groupRoles,
    resource: 'api.groups',
    relations: { group: manyToOne('UserGroup', 'groupId'), role: manyToOne('Role', 'roleId') },
  }),
  defineEntity({
    name: 'AppUser',
    platform: true,
    package: 'security',
    table: t.appUsers,
    resource: 'api.users',
    fields: { serviceAccount: { readOnly: true } },
    relations: { memberships: oneToMany('GroupMember', 'user') },
  }),
  defineEntity({
    name: 'GroupMember',
    platform: true,
    package: 'security',
    table: t.groupMembers,
    resource: 'api.groups',
    relations: { group: manyToOne('UserGroup', 'groupId'), user: manyToOne('AppUser', 'userId') },
  }),
  defineEntity({
    name: 'OauthClient',
    platform: true,
    package: 'security',
    table: t.oauthClients,
    resource: 'api.security',
    relations: { user: manyToOne('AppUser', 'userId') },
  }),
  defineEntity({
    ...SECRET,
    name: 'UserCredential',
    table: t.userCredentials,
    relations: { user: manyToOne('AppUser', 'userId') },
  }),
  defineEntity({
    ...SECRET,
    name: 'ClientSecret',
    table: t.clientSecrets,
    relations: { client: manyToOne('OauthClient', 'clientId') },
  }),
  defineEntity({ ...SECRET, name: 'SigningKey', table: t.signingKeys }),
  defineEntity({
    ...SECRET,
    name: 'PortalSession',
    table: t.portalSessions,
    relations: { user: manyToOne('AppUser', 'userId') },
  }),
  defineEntity({ ...SECRET, name: 'AuthThrottle', table: t.authThrottles }),
  defineEntity({ ...SECRET, name: 'BootstrapState', table: t.bootstrapState }),
]
