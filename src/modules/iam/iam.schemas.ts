import { Type, type Static } from 'typebox'
import { Auditable, ListOf, Nullable, PageOf } from '../../kernel/http/schemas.ts'
import { describePattern } from '../../kernel/http/validation.ts'
import { PageQuery as ListPage } from '../../kernel/http/pagination.ts'

/** A name without spaces at either end. */
const NAME_PATTERN = '^\\S(.*\\S)?$'
describePattern(NAME_PATTERN, 'must not start or end with a space')
const nameString = Type.String({ minLength: 1, maxLength: 100, pattern: NAME_PATTERN })
const roleList = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 200, uniqueItems: true })
const sellerList = Nullable(
  Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 500, uniqueItems: true }),
)
const groupFields = {
  description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  roles: Type.Optional(roleList),
  sellerCodes: Type.Optional(sellerList),
}
export const GroupInput = Type.Object(
  { name: nameString, ...groupFields },
  { $id: 'GroupInput', title: 'GroupInput', additionalProperties: false },
)
export const GroupUpdate = Type.Object(
  { name: Type.Optional(nameString), ...groupFields },
  { $id: 'GroupUpdate', title: 'GroupUpdate', additionalProperties: false },
)
export const Group = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: Nullable(Type.String()),
    builtIn: Type.Boolean(),
    sellerCodes: Nullable(Type.Array(Type.String())),
    auditable: Auditable,
    roles: Type.Array(Type.String()),
    members: Type.Array(
      Type.Object({ username: Type.String(), serviceAccount: Type.Boolean() }, { additionalProperties: false }),
    ),
  },
  { $id: 'Group', title: 'Group', additionalProperties: false },
)
export const GroupList = ListOf(Group, 'GroupList')
export const MemberInput = Type.Object(
  { username: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
)

export const Role = Type.Object(
  {
    name: Type.String(),
    domain: Nullable(Type.String()),
    resource: Nullable(Type.String()),
    scope: Nullable(Type.String()),
    description: Type.String(),
  },
  { $id: 'Role', title: 'Role', additionalProperties: false },
)
export const RoleList = ListOf(Role, 'RoleList')

/** A username: a letter or digit, then letters, digits, `_`, `.`, `@` and `-`. */
const USERNAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.@-]*$'
describePattern(
  USERNAME_PATTERN,
  'expected letters, digits, _, ., @ and -, starting with a letter or a digit (no spaces)',
)
const usernameString = Type.String({ minLength: 1, maxLength: 100, pattern: USERNAME_PATTERN })
const password = Type.String({ minLength: 10, maxLength: 200 })
const groupNames = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100, uniqueItems: true })
const userFields = {
  email: Type.Optional(Nullable(Type.String({ format: 'email' }))),
  enabled: Type.Optional(Type.Boolean()),
  groups: Type.Optional(groupNames),
}
export const UserInput = Type.Object(
  { username: usernameString, password, ...userFields },
  { $id: 'UserInput', title: 'UserInput', additionalProperties: false },
)
export const UserUpdate = Type.Object(
  { password: Type.Optional(password), ...userFields },
  { $id: 'UserUpdate', title: 'UserUpdate', additionalProperties: false },
)
export const User = Type.Object(
  {
    id: Type.Integer(),
    username: Type.String(),
    email: Nullable(Type.String()),
    enabled: Type.Boolean(),
    serviceAccount: Type.Boolean(),
    groups: Type.Array(Type.String()),
    auditable: Auditable,
  },
  { $id: 'User', title: 'User', additionalProperties: false },
)
export const UserPage = PageOf(User, 'UserPage')
/** The users list's paging: the one rule of every list (the tenant's default page size, at most MAX_PAGE_LIMIT). */
export const PageQuery = Type.Object(ListPage, { additionalProperties: false })

const clientFields = {
  description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  groups: Type.Optional(groupNames),
}
export const ClientInput = Type.Object(
  { clientId: Type.Optional(usernameString), ...clientFields },
  { $id: 'ClientInput', title: 'ClientInput', additionalProperties: false },
)
export const ClientUpdate = Type.Object(
  { enabled: Type.Optional(Type.Boolean()), ...clientFields },
  { $id: 'ClientUpdate', title: 'ClientUpdate', additionalProperties: false },
)
const clientProperties = {
  id: Type.Integer(),
  clientId: Type.String(),
  description: Nullable(Type.String()),
  enabled: Type.Boolean(),
  serviceAccountUser: Type.String({ description: 'the username of the client’s service account' }),
  groups: Type.Array(Type.String()),
  auditable: Auditable,
}
export const Client = Type.Object(clientProperties, { $id: 'Client', title: 'Client', additionalProperties: false })
export const ClientWithSecret = Type.Object(
  { ...clientProperties, clientSecret: Type.String({ description: 'shown in this response only, never again' }) },
  { $id: 'ClientWithSecret', title: 'ClientWithSecret', additionalProperties: false },
)
export const ClientList = ListOf(Client, 'ClientList')

export const Session = Type.Object(
  {
    subject: Type.String(),
    username: Type.String(),
    clientId: Nullable(Type.String()),
    realm: Type.String({ description: 'the realm whose token endpoint issued the token (AUTH_REALM or opencell)' }),
    groups: Type.Array(Type.String()),
    roles: Type.Array(Type.String()),
    expiresAt: Nullable(Type.String({ format: 'date-time' })),
    tenant: Type.Object(
      {
        today: Type.String({
          format: 'date',
          description: "today in the tenant's time zone (yyyy-MM-dd): the day version states and defaults are read on",
        }),
        timeZone: Type.String({ description: "the tenant's time zone (IANA name)" }),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'Session', title: 'Session', additionalProperties: false },
)

export const NameParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 255 }) })
export const MemberParams = Type.Object({ name: Type.String(), username: Type.String() })
export const UsernameParams = Type.Object({ username: Type.String({ minLength: 1, maxLength: 255 }) })
export const ClientIdParams = Type.Object({ clientId: Type.String({ minLength: 1, maxLength: 255 }) })

export const TokenResponse = Type.Object(
  {
    access_token: Type.String({ description: 'a signed JWT; send it as `Authorization: Bearer <token>`' }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'seconds' }),
    scope: Type.String(),
  },
  { $id: 'TokenResponse', title: 'TokenResponse', additionalProperties: false },
)
export const TokenRequest = Type.Object(
  {
    grant_type: Type.String({ description: '`client_credentials`' }),
    client_id: Type.Optional(Type.String({ description: 'with client_secret_post; or HTTP Basic authentication' })),
    client_secret: Type.Optional(Type.String()),
    scope: Type.Optional(Type.String()),
  },
  { $id: 'TokenRequest', title: 'TokenRequest' },
)
export const JsonWebKeySet = Type.Object(
  {
    keys: Type.Array(
      Type.Object(
        {
          kty: Type.String(),
          kid: Type.String(),
          alg: Type.String(),
          use: Type.String(),
          crv: Type.Optional(Type.String()),
          x: Type.Optional(Type.String()),
          y: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: 'JsonWebKeySet', title: 'JsonWebKeySet', additionalProperties: false },
)
export const OpenidConfiguration = Type.Object(
  {
    issuer: Type.String(),
    token_endpoint: Type.String(),
    jwks_uri: Type.String(),
    grant_types_supported: Type.Array(Type.String()),
    token_endpoint_auth_methods_supported: Type.Array(Type.String()),
    id_token_signing_alg_values_supported: Type.Array(Type.String()),
    response_types_supported: Type.Array(Type.String()),
    subject_types_supported: Type.Array(Type.String()),
  },
  { $id: 'OpenidConfiguration', title: 'OpenidConfiguration', additionalProperties: false },
)
export const PortalLoginInput = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 200 }),
    password: Type.String({ minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: false },
)
export const PortalSession = Type.Object(
  {
    username: Type.String(),
    csrfToken: Type.String({ description: 'send it as the x-csrf-token header on portal writes' }),
    expiresAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'PortalSession', title: 'PortalSession', additionalProperties: false },
)
export const RealmParams = Type.Object({
  realm: Type.String({
    description: 'the configured realm (AUTH_REALM, default `obol`) or `opencell`: two names of one issuer',
  }),
})

export type GroupView = Static<typeof Group>
export type UserView = Static<typeof User>
export type ClientView = Static<typeof Client>

export interface GroupInput {
  name?: string
  description?: string | null
  roles?: string[]
  sellerCodes?: string[] | null
}
