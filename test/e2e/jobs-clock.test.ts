import { expect, it } from 'vitest'
import { FakeClock } from '../../src/kernel/clock.ts'
import type { JobType } from '../../src/kernel/jobs/job-runtime.ts'
import { useTestApp } from '../support/test-app.ts'

// The tenant's time now is the injected clock's, not the machine's: far from the real date, so a next fire time
// computed from the machine's clock cannot pass.
const clock = new FakeClock('2031-03-10T09:20:00Z')
const retimed: JobType = {
  name: 'RetimedJob',
  description: 'a job whose timer the test changes',
  defaultInstance: { code: 'Retimed', description: 'retimed' },
  run: async () => ({}),
}
const t = useTestApp({ clock, jobTypes: [retimed] })

it('computes a changed timer’s next fire time from the injected clock, in the tenant time zone', async () => {
  expect((await t.request('PUT', '/api/v1/tenantSettings', { timeZone: 'Europe/Paris' })).status).toBe(200)
  const response = await t.request('PUT', '/api/v1/jobs/Retimed', { timer: { second: '0', minute: '0', hour: '12' } })
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  // 10:20 in Paris on 10 March 2031 (UTC+1): the next noon there is the same day, 11:00 UTC.
  expect(response.body.nextFireAt).toBe('2031-03-10T11:00:00.000Z')
})
