import { afterAll, describe, expect, it } from 'vitest'
import { useTestApp, type Response } from '../support/test-app.ts'

/**
 * Users, job executions, saved workbench queries and Expert runs page as every other list (the languages list stands
 * for them): the tenant's default page size (100 unless changed) when no limit is sent, a larger limit lowered to
 * 1000, a limit below 1 refused with the same 400 naming `limit`.
 */
const t = useTestApp()

/** A list with `?` or `&` ready for the paging parameters. */
const lists = {
  languages: '/api/v1/languages?',
  users: '/api/v1/users?',
  jobExecutions: '', // set once a job's code is known
  workbenchQueries: '/api/v1/workbench/queries?',
  expertExecutions: '/api/v1/workbench/expert/executions?',
}

async function listsToCheck(): Promise<Record<string, string>> {
  if (!lists.jobExecutions) {
    const jobs = await t.request('GET', '/api/v1/jobs')
    expect(jobs.status).toBe(200)
    lists.jobExecutions = `/api/v1/jobs/${jobs.body.data[0].code as string}/executions?`
  }
  return lists
}

const get = (url: string): Promise<Response> => t.request('GET', url)

describe('paging of the users, job executions, workbench queries and Expert runs lists', () => {
  afterAll(async () => {
    await t.request('PUT', '/api/v1/tenantSettings', { defaultListLimit: 100 })
  })

  it('answers the documented default page size, 100, when no limit is sent', async () => {
    for (const [name, url] of Object.entries(await listsToCheck())) {
      const page = await get(url)
      expect(page.status, name).toBe(200)
      expect(page.body, name).toMatchObject({ offset: 0, limit: 100 })
    }
  })

  it('lowers a limit above 1000 to 1000, as every list does', async () => {
    for (const [name, url] of Object.entries(await listsToCheck())) {
      const page = await get(`${url}limit=5000`)
      expect(page.status, name).toBe(200)
      expect(page.body.limit, name).toBe(1000)
    }
  })

  it('refuses a limit below 1 with the same 400 naming limit as every list', async () => {
    const reference = await get(`${lists.languages}limit=0`)
    expect(reference.status).toBe(400)
    expect(reference.body.details).toEqual([
      { field: 'limit', message: 'query parameter expected a number of 1 or more' },
    ])
    for (const [name, url] of Object.entries(await listsToCheck())) {
      const refused = await get(`${url}limit=0`)
      expect(refused.status, name).toBe(400)
      expect(refused.body, name).toEqual(reference.body)
    }
  })

  it('follows the tenant default page size when it changes', async () => {
    // Three saved queries and three users, so a page of two leaves some out.
    for (const n of [1, 2, 3]) {
      const saved = await t.request('POST', '/api/v1/workbench/queries', {
        code: `PAGING_${n}`,
        visibility: 'PRIVATE',
        queryType: 'HQL',
        queryText: 'select s.code from Seller s',
      })
      expect(saved.status, JSON.stringify(saved.body)).toBe(201)
      const user = await t.request('POST', '/api/v1/users', { username: `paging-${n}`, password: 'a-long-password-1' })
      expect(user.status, JSON.stringify(user.body)).toBe(201)
    }
    expect((await t.request('PUT', '/api/v1/tenantSettings', { defaultListLimit: 2 })).status).toBe(200)
    for (const [name, url] of Object.entries(await listsToCheck())) {
      const page = await get(url)
      expect(page.status, name).toBe(200)
      expect(page.body.limit, name).toBe(2)
      expect(page.body.data.length, name).toBeLessThanOrEqual(2)
    }
    const users = await get(lists.users)
    expect(users.body.total).toBeGreaterThan(2)
    expect(users.body.data).toHaveLength(2)
    const queries = await get(lists.workbenchQueries)
    expect(queries.body.total).toBeGreaterThan(2)
    expect(queries.body.data).toHaveLength(2)
    // A limit sent still wins over the default.
    expect((await get(`${lists.users}limit=3`)).body.data).toHaveLength(3)
  })
})
