import type { Db } from '../../kernel/db/database.ts'
import { AppError } from '../../kernel/errors.ts'
import type { AuthConfig } from '../../kernel/config.ts'
import type { GroupInput, IamService } from './iam.service.ts'
import { deleteSession, findLiveSession, insertSession, sessionReference } from './portal.repository.ts'
import { DUMMY_HASH, randomSecret, sha256, verifySecret } from './secrets.ts'
import { refusalMessage, type AuthThrottle } from './throttle.ts'
import { grantsOf, type TokenService } from './tokens.ts'

export type PortalService = ReturnType<typeof createPortalService>

export interface SessionUser {
  userId: number
  username: string
  /** The session's reference (`sessionReference`), carried by the tokens issued to it. */
  session: string
}

/** The header a mutating portal call echoes the CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token'

/**
 * The web UI's sessions. A login (password checked, failures throttled per user and per address) yields a session id
 * for an HttpOnly cookie and a CSRF token; a mutating call must send that token back in `x-csrf-token`, which a page
 * of another site cannot read. Only hashes of both are stored, and the session ends at its expiry by the database
 * clock or when its user is disabled.
 */
export function createPortalService(deps: {
  db: Db
  iam: Pick<IamService, 'passwordUser' | 'createGroup'>
  tokens: Pick<TokenService, 'issue'>
  throttle: AuthThrottle
  config: Pick<AuthConfig, 'portalSessionTtlSec' | 'tokenTtlSec'>
}) {
  const { db, iam, tokens, throttle, config } = deps

  return {
    /** A new session for a right username and password; 429 while the user or the address is throttled. */
    async login(username: string, password: string, address: string) {
      const attempt = { kind: 'user' as const, identity: username, address }
      const refusal = await throttle.refusal(attempt)
      if (refusal) {
        throw new AppError('TOO_MANY_REQUESTS', refusalMessage(refusal, 'this user'), {
          headers: { 'retry-after': String(refusal.retryAfterSec) },
        })
      }
      const user = await iam.passwordUser(username)
      // Hash even for an unknown user, so timing does not tell which usernames exist.
      const valid = await verifySecret(password, user?.hash ?? DUMMY_HASH)
      if (!user || !valid) {
        await throttle.recordFailure(attempt)
        throw new AppError('UNAUTHORIZED', 'Unknown username or wrong password')
      }
      await throttle.recordSuccess(attempt)
      const sessionId = randomSecret()
      const csrfToken = randomSecret()
      const expiresAt = await insertSession(db, {
        idHash: sha256(sessionId),
        userId: user.id,
        csrfHash: sha256(csrfToken),
        ttlSec: config.portalSessionTtlSec,
      })
      return { sessionId, username: user.username, csrfToken, expiresAt }
    },

    /**
     * The user of a live session: 401 without a session id or with an expired or unknown one; with `csrf`, 403
     * unless `csrfHeader` is the token issued with the session.
     */
    async sessionUser(
      sessionId: string | undefined,
      csrf: { required: boolean; header: string | string[] | undefined },
    ): Promise<SessionUser> {
      if (!sessionId) throw new AppError('UNAUTHORIZED', 'Log in first: no portal session cookie')
      const idHash = sha256(sessionId)
      const found = await findLiveSession(db, idHash)
      if (!found) throw new AppError('UNAUTHORIZED', 'The portal session has expired or does not exist; log in again')
      if (csrf.required && (typeof csrf.header !== 'string' || sha256(csrf.header) !== found.csrfHash)) {
        throw new AppError('FORBIDDEN', `This call needs the ${CSRF_HEADER} header issued at login`)
      }
      return { userId: found.userId, username: found.username, session: sessionReference(idHash) }
    },

    logout: (sessionId: string | undefined) => deleteSession(db, sha256(sessionId ?? '')),

    /**
     * A bearer token for the session's user, living at most five minutes (less when tokens live less), naming the
     * session: a password change made with it keeps that session.
     */
    token: (user: SessionUser) =>
      tokens.issue(
        { userId: user.userId, username: user.username, clientId: undefined, portalSession: user.session },
        Math.min(300, config.tokenTtlSec),
      ),

    /** Creates a group as the session's user, who needs the role api.groups.manage through its groups. */
    async createGroup(user: SessionUser, input: Required<Pick<GroupInput, 'name'>> & GroupInput) {
      const { roles } = await grantsOf(db, user.userId)
      if (!roles.includes('api.groups.manage'))
        throw new AppError('FORBIDDEN', 'This operation needs the role api.groups.manage')
      return iam.createGroup(input, user.username)
    },
  }
}
