import { bigint, boolean, index, integer, jsonb, pgSchema, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core'
import { auditColumns, idColumn, refColumn } from './columns.ts'

/** The role catalog: defined by the platform at bootstrap, read-only through the API. */
export const roles = pgTable('role', {
  id: idColumn(),
  name: text('name').notNull().unique(),
  domain: text('domain'),
  resource: text('resource'),
  scope: text('scope'),
  description: text('description'),
})

export const userGroups = pgTable('user_group', {
  id: idColumn(),
  name: text('name').notNull().unique(),
  description: text('description'),
  builtIn: boolean('built_in').notNull().default(false),
  /** Row-level restriction: the sellers members may see; null = unrestricted. */
  sellerCodes: text('seller_codes').array(),
  ...auditColumns(),
})

export const groupRoles = pgTable(
  'group_role',
  {
    id: idColumn(),
    groupId: refColumn('group_id')
      .notNull()
      .references(() => userGroups.id, { onDelete: 'cascade' }),
    roleId: refColumn('role_id')
      .notNull()
      .references(() => roles.id),
  },
  (t) => [unique('group_role_uq').on(t.groupId, t.roleId), index('group_role_role_idx').on(t.roleId)],
)

/** People and service-account users. Credentials live in the secrets schema. */
export const appUsers = pgTable('app_user', {
  id: idColumn(),
  username: text('username').notNull().unique(),
  email: text('email'),
  enabled: boolean('enabled').notNull().default(true),
  serviceAccount: boolean('service_account').notNull().default(false),
  ...auditColumns(),
})

export const groupMembers = pgTable(
  'group_member',
  {
    id: idColumn(),
    groupId: refColumn('group_id')
      .notNull()
      .references(() => userGroups.id, { onDelete: 'cascade' }),
    userId: refColumn('user_id')
      .notNull()
      .references(() => appUsers.id, { onDelete: 'cascade' }),
  },
  (t) => [unique('group_member_uq').on(t.groupId, t.userId), index('group_member_user_idx').on(t.userId)],
)

/** OAuth 2.0 clients using the client credentials grant; each has one service-account user. */
export const oauthClients = pgTable('oauth_client', {
  id: idColumn(),
  clientId: text('client_id').notNull().unique(),
  description: text('description'),
  userId: refColumn('user_id')
    .notNull()
    .unique()
    .references(() => appUsers.id),
  enabled: boolean('enabled').notNull().default(true),
  ...auditColumns(),
})

/**
 * Secrets: hashes, signing keys, sessions, throttling. Their own schema, marked not queryable in the registry,
 * never granted to the Expert SQL role.
 */
export const secrets = pgSchema('obol_secrets')

export const userCredentials = secrets.table('user_credential', {
  userId: refColumn('user_id')
    .primaryKey()
    .references(() => appUsers.id, { onDelete: 'cascade' }),
  passwordHash: text('password_hash').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
})

export const clientSecrets = secrets.table('client_secret', {
  clientId: refColumn('client_id')
    .primaryKey()
    .references(() => oauthClients.id, { onDelete: 'cascade' }),
  secretHash: text('secret_hash').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
})

export const signingKeys = secrets.table('signing_key', {
  kid: text('kid').primaryKey(),
  algorithm: text('algorithm').notNull(),
  privateJwk: jsonb('private_jwk').$type<Record<string, unknown>>().notNull(),
  publicJwk: jsonb('public_jwk').$type<Record<string, unknown>>().notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  /** Set when a newer key takes over; the key stays published until its last token expires. */
  retiredAt: timestamp('retired_at', { withTimezone: true, mode: 'date' }),
})

export const portalSessions = secrets.table('portal_session', {
  idHash: text('id_hash').primaryKey(),
  userId: refColumn('user_id')
    .notNull()
    .references(() => appUsers.id, { onDelete: 'cascade' }),
  csrfHash: text('csrf_hash').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
})

export const authThrottles = secrets.table('auth_throttle', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull(),
  windowStart: timestamp('window_start', { withTimezone: true, mode: 'date' }).notNull(),
})

export const bootstrapState = secrets.table('bootstrap_state', {
  name: text('name').primaryKey(),
  doneAt: timestamp('done_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  detail: bigint('detail', { mode: 'number' }),
})
