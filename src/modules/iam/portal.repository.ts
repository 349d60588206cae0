import { sql } from 'drizzle-orm'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import { instantText, textArray } from '../../kernel/model/json.ts'
import { sha256 } from './secrets.ts'

/** Portal sessions: only hashes of the session id and of the CSRF token are stored. */

/** Stores a session that expires `ttlSec` seconds from the database clock; answers its expiry as a wire instant. */
export async function insertSession(
  db: Db,
  session: { idHash: string; userId: number; csrfHash: string; ttlSec: number },
): Promise<string> {
  const created = await one<{ expires_at: string }>(
    db,
    sql`insert into obol_secrets.portal_session (id_hash, user_id, csrf_hash, expires_at)
      values (${session.idHash}, ${session.userId}, ${session.csrfHash}, now() + make_interval(secs => ${session.ttlSec}))
      returning ${instantText(sql`expires_at`)} as expires_at`,
  )
  return created!.expires_at
}

/** The live session of this id hash: not expired by the database clock, and its user still enabled. */
export async function findLiveSession(
  db: Db,
  idHash: string,
): Promise<{ userId: number; username: string; csrfHash: string } | undefined> {
  const found = await one<{ user_id: string | number; username: string; csrf_hash: string }>(
    db,
    sql`select s.user_id, u.username, s.csrf_hash from obol_secrets.portal_session s join app_user u on u.id = s.user_id
      where s.id_hash = ${idHash} and s.expires_at > now() and u.enabled`,
  )
  return found && { userId: Number(found.user_id), username: found.username, csrfHash: found.csrf_hash }
}

export async function deleteSession(db: Db, idHash: string): Promise<void> {
  await db.execute(sql`delete from obol_secrets.portal_session where id_hash = ${idHash}`)
}

/**
 * A session's reference, for a token to name it: the hash of its id hash, so neither the cookie nor the stored key
 * leaves the server.
 */
export const sessionReference = (idHash: string): string => sha256(idHash)

/** Ends every portal session of a user but the one `keep` refers to (`sessionReference`), if any. */
export async function endSessionsOf(db: Db, userId: number, keep: string | undefined): Promise<void> {
  const found = await rows<{ id_hash: string }>(
    db,
    sql`select id_hash from obol_secrets.portal_session where user_id = ${userId}`,
  )
  const ended = found.map((s) => s.id_hash).filter((idHash) => sessionReference(idHash) !== keep)
  if (ended.length === 0) return
  await db.execute(sql`delete from obol_secrets.portal_session where id_hash = any(${textArray(ended)})`)
}
