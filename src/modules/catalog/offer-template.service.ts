import { sql } from 'drizzle-orm'
import { one, type Db } from '../../kernel/db/database.ts'
import { AppError, validationError, type ErrorDetail } from '../../kernel/errors.ts'
import { registry } from '../../kernel/model/index.ts'
import * as records from '../../kernel/resources/resource.repository.ts'
import type { ListQuery, ResourceService } from '../../kernel/resources/resource.service.ts'
import { readTenantSettings } from '../../kernel/settings.ts'
import { readDecimal } from '../pricing/index.ts'
import {
  canMoveOffer,
  DEFAULT_STATUS,
  INITIAL_STATUSES,
  isOfferStatus,
  OFFER_STATUSES,
  type OfferStatus,
} from './offer-status.model.ts'
import * as repo from './offer-template.repository.ts'

export interface OfferComponentInput {
  productCode: string
  mandatory?: boolean
  defaultQuantity?: number | string
  minQuantity?: number | string | null
  maxQuantity?: number | string | null
  sequence?: number
}

export interface OfferInput {
  code?: string
  description?: string | null
  name?: string | null
  lifeCycleStatus?: string
  validFrom?: string | null
  validTo?: string | null
  autoEndOfEngagement?: boolean
  attributes?: Record<string, unknown>
  offerComponents?: OfferComponentInput[]
  offerServiceTemplates?: { serviceTemplateCode: string; mandatory?: boolean; sequence?: number }[]
  discountPlans?: string[]
  sellers?: string[]
  offerTemplateCategories?: string[]
}

const OFFER = () => registry.get('OfferTemplate')

function statusOf(value: string, problems: ErrorDetail[]): OfferStatus | undefined {
  const status = value.toUpperCase()
  if (isOfferStatus(status)) return status
  problems.push({ field: 'lifeCycleStatus', message: `expected one of ${OFFER_STATUSES.join(', ')}` })
  return undefined
}

async function idsOf(
  tx: Db,
  entity: string,
  label: string,
  field: string,
  codes: readonly string[],
  problems: ErrorDetail[],
): Promise<number[]> {
  const ids: number[] = []
  for (const [i, code] of codes.entries()) {
    const id = await records.idOfCode(tx, registry.get(entity), code)
    if (id === undefined) problems.push({ field: `${field}[${i}]`, message: `no ${label} with code '${code}'` })
    else ids.push(id)
  }
  return ids
}

async function componentRows(tx: Db, inputs: readonly OfferComponentInput[], problems: ErrorDetail[]) {
  const rows: repo.ComponentRow[] = []
  const seen = new Set<string>()
  for (const [i, input] of inputs.entries()) {
    const field = `offerComponents[${i}]`
    if (seen.has(input.productCode)) {
      problems.push({ field: `${field}.productCode`, message: `product ${input.productCode} is listed twice` })
      continue
    }
    seen.add(input.productCode)
    const productId = await records.idOfCode(tx, registry.get('Product'), input.productCode)
    if (productId === undefined) {
      problems.push({ field: `${field}.productCode`, message: `no product with code '${input.productCode}'` })
    }
    const quantity = (value: number | string | null | undefined, name: string) =>
      value === undefined || value === null
        ? null
        : (readDecimal(value, `${field}.${name}`, problems, { min: 0 }) ?? null)
    const defaultQuantity = quantity(input.defaultQuantity ?? 1, 'defaultQuantity')
    const min = quantity(input.minQuantity, 'minQuantity')
    const max = quantity(input.maxQuantity, 'maxQuantity')
    if (min && max && min.gt(max))
      problems.push({ field: `${field}.maxQuantity`, message: 'expected at least minQuantity' })
    if (defaultQuantity && ((min && defaultQuantity.lt(min)) || (max && defaultQuantity.gt(max)))) {
      problems.push({
        field: `${field}.defaultQuantity`,
        message: 'expected a value between minQuantity and maxQuantity',
      })
    }
    if (productId !== undefined && defaultQuantity) {
      rows.push({
        productId,
        mandatory: input.mandatory ?? false,
        defaultQuantity: defaultQuantity.toFixed(),
        minQuantity: min?.toFixed() ?? null,
        maxQuantity: max?.toFixed() ?? null,
        sequence: input.sequence ?? i,
      })
    }
  }
  return rows
}

/** v1 offer templates with their components (products), services, allowed discount plans, sellers and categories. */
export function createOfferTemplateService(deps: { db: Db; records: ResourceService }) {
  async function withLinks(db: Db, record: records.WireRecord) {
    const links = (await repo.linksOf(db, [record.id as number])).get(record.id as number)!
    return { ...record, ...links }
  }

  async function get(db: Db, code: string) {
    const record = await records.findByCode(db, OFFER(), code)
    if (!record) throw new AppError('ENTITY_NOT_FOUND', `Offer template ${code} not found`)
    return withLinks(db, record)
  }

  /** Writes the link lists the input carries (each replaces the whole set), validating every code. */
  async function writeLinks(tx: Db, offerId: number, input: OfferInput, problems: ErrorDetail[]) {
    const writes: (() => Promise<void>)[] = []
    if (input.offerComponents) {
      const rows = await componentRows(tx, input.offerComponents, problems)
      writes.push(() => repo.replaceComponents(tx, offerId, rows))
    }
    if (input.offerServiceTemplates) {
      const codes = input.offerServiceTemplates.map((s) => s.serviceTemplateCode)
      const ids = await idsOf(tx, 'ServiceTemplate', 'service template', 'offerServiceTemplates', codes, problems)
      if (new Set(codes).size !== codes.length) {
        problems.push({ field: 'offerServiceTemplates', message: 'a service template is listed twice' })
      }
      const rows = input.offerServiceTemplates.map((s, i) => ({
        serviceTemplateId: ids[i]!,
        mandatory: s.mandatory ?? false,
        sequence: s.sequence ?? i,
      }))
      writes.push(() => repo.replaceServices(tx, offerId, rows))
    }
    if (input.discountPlans) {
      const ids = await idsOf(tx, 'DiscountPlan', 'discount plan', 'discountPlans', input.discountPlans, problems)
      writes.push(() => repo.replaceDiscountPlans(tx, offerId, ids))
    }
    if (input.sellers) {
      const ids = await idsOf(tx, 'Seller', 'seller', 'sellers', input.sellers, problems)
      writes.push(() => repo.replaceSellers(tx, offerId, ids))
    }
    if (input.offerTemplateCategories) {
      const ids = await idsOf(
        tx,
        'OfferTemplateCategory',
        'offer template category',
        'offerTemplateCategories',
        input.offerTemplateCategories,
        problems,
      )
      writes.push(() => repo.replaceCategories(tx, offerId, ids))
    }
    if (problems.length > 0) throw validationError(problems)
    for (const write of writes) await write()
  }

  async function validity(tx: Db, input: OfferInput, current: records.WireRecord | undefined): Promise<repo.Validity> {
    const zone = (await readTenantSettings(tx)).timeZone
    const result: repo.Validity = {}
    if (input.validFrom !== undefined)
      result.validFrom = input.validFrom === null ? null : repo.instantSql(input.validFrom, zone)
    if (input.validTo !== undefined)
      result.validTo = input.validTo === null ? null : repo.instantSql(input.validTo, zone)
    const from = input.validFrom === undefined ? (current?.validFrom as string | null | undefined) : input.validFrom
    const to = input.validTo === undefined ? (current?.validTo as string | null | undefined) : input.validTo
    if (from && to) {
      const order = await one<{ ok: boolean }>(
        tx,
        sql`select ${repo.instantSql(to, zone)} > ${repo.instantSql(from, zone)} as ok`,
      )
      if (!order?.ok) throw validationError([{ field: 'validTo', message: 'expected an instant after validFrom' }])
    }
    return result
  }

  return {
    get: (code: string) => get(deps.db, code),

    async list(query: ListQuery) {
      const page = await deps.records.list(query)
      const links = await repo.linksOf(
        deps.db,
        page.data.map((r) => r.id as number),
      )
      return { ...page, data: page.data.map((r) => ({ ...r, ...links.get(r.id as number) })) }
    },

    /** A new offer starts in IN_STUDY, IN_DESIGN (default), IN_TEST, ACTIVE or LAUNCHED. */
    async create(input: OfferInput & { code: string }, actor: string) {
      return deps.db.transaction(async (tx) => {
        if ((await records.idOfCode(tx, OFFER(), input.code)) !== undefined) {
          throw new AppError('ENTITY_ALREADY_EXISTS', `Offer template ${input.code} already exists`)
        }
        const problems: ErrorDetail[] = []
        const status = input.lifeCycleStatus === undefined ? DEFAULT_STATUS : statusOf(input.lifeCycleStatus, problems)
        if (status && !INITIAL_STATUSES.includes(status)) {
          problems.push({
            field: 'lifeCycleStatus',
            message: `a new offer starts in ${INITIAL_STATUSES.join(', ')}, not ${status}`,
          })
        }
        if (problems.length > 0) throw validationError(problems)
        const id = await repo.insertOffer(
          tx,
          {
            code: input.code,
            description: input.description ?? null,
            name: input.name ?? null,
            lifeCycleStatus: status!,
            autoEndOfEngagement: input.autoEndOfEngagement ?? false,
            attributes: input.attributes ?? {},
          },
          await validity(tx, input, undefined),
          actor,
        )
        await writeLinks(tx, id, input, problems)
        return get(tx, input.code)
      })
    },

    /** Partial update: sent fields change, sent lists replace their set; a status change follows the transition table. */
    async update(code: string, input: OfferInput, actor: string) {
      return deps.db.transaction(async (tx) => {
        const id = await records.lockIdOfCode(tx, OFFER(), code)
        if (id === undefined) throw new AppError('ENTITY_NOT_FOUND', `Offer template ${code} not found`)
        const current = (await records.findById(tx, OFFER(), id))!
        const problems: ErrorDetail[] = []
        let status: OfferStatus | undefined
        if (input.lifeCycleStatus !== undefined) {
          status = statusOf(input.lifeCycleStatus, problems)
          if (problems.length > 0) throw validationError(problems)
          const from = current.lifeCycleStatus as OfferStatus
          if (!canMoveOffer(from, status!)) {
            throw new AppError(
              'OFFER_STATUS_TRANSITION_INVALID',
              `Offer ${code} cannot move from ${from} to ${status!}`,
            )
          }
        }
        const values: repo.OfferValues = {}
        if (input.description !== undefined) values.description = input.description
        if (input.name !== undefined) values.name = input.name
        if (status !== undefined) values.lifeCycleStatus = status
        if (input.autoEndOfEngagement !== undefined) values.autoEndOfEngagement = input.autoEndOfEngagement
        if (input.attributes !== undefined) values.attributes = input.attributes
        await repo.updateOffer(tx, id, values, await validity(tx, input, current), actor)
        await writeLinks(tx, id, input, problems)
        return get(tx, code)
      })
    },

    /** Offers in ACTIVE or LAUNCHED must be retired before they can be deleted. */
    async delete(code: string) {
      await deps.db.transaction(async (tx) => {
        const id = await records.lockIdOfCode(tx, OFFER(), code)
        if (id === undefined) throw new AppError('ENTITY_NOT_FOUND', `Offer template ${code} not found`)
        const current = (await records.findById(tx, OFFER(), id))!
        if (current.lifeCycleStatus === 'ACTIVE' || current.lifeCycleStatus === 'LAUNCHED') {
          throw new AppError(
            'INVALID_STATE',
            `Offer ${code} is ${current.lifeCycleStatus as string}: retire it before deleting it`,
          )
        }
        await repo.deleteOffer(tx, id)
      })
    },
  }
}

export type OfferTemplateService = ReturnType<typeof createOfferTemplateService>
