import * as t from '../../db/schema/index.ts'
import { defineEntity, manyToOne, oneToMany } from '../registry.ts'

export const jobEntities = [
  defineEntity({
    name: 'AppInstance',
    platform: true,
    package: 'jobs',
    table: t.appInstances,
    resource: 'api.jobs',
    fields: { hostname: { readOnly: true }, pid: { readOnly: true }, roles: { readOnly: true } },
  }),
  defineEntity({
    name: 'JobInstance',
    platform: true,
    package: 'jobs',
    table: t.jobInstances,
    resource: 'api.jobs',
    fields: { nextFireAt: { readOnly: true }, lastFireAt: { readOnly: true } },
    relations: { executions: oneToMany('JobExecution', 'jobInstance') },
  }),
  defineEntity({
    name: 'JobExecution',
    platform: true,
    package: 'jobs',
    table: t.jobExecutions,
    resource: 'api.jobs',
    fields: {
      status: { enum: ['QUEUED', 'RUNNING', 'SUCCESS', 'FAILED'] },
      trigger: { enum: ['TIMER', 'MANUAL'] },
    },
    relations: { jobInstance: manyToOne('JobInstance', 'jobInstanceId') },
  }),
]
