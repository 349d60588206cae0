import type { Caller } from '../../kernel/caller.ts'
import { sql } from 'drizzle-orm'
import { withTransaction } from '../../kernel/db/transaction.ts'
import { one, type Db } from '../../kernel/db/database.ts'
import { pgErrorOf } from '../../kernel/db/database-errors.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import { AppError, validationError, type ErrorDetail } from '../../kernel/errors.ts'
import { InvariantError } from '../../kernel/invariant.ts'
import { registry } from '../../kernel/model/index.ts'
import type { SellerCodes } from '../../kernel/model/row-security.ts'
import * as records from '../../kernel/resources/resource.repository.ts'
import type { ListQuery, ResourceService } from '../../kernel/resources/resource.service.ts'
import { readTenantSettings } from '../../kernel/settings.ts'
import { readDecimal } from '../pricing/index.ts'
import {
  canDeleteOffer,
  canMoveOffer,
  DEFAULT_STATUS,
  INITIAL_STATUSES,
  isOfferStatus,
  nextOfferStatuses,
  OFFER_STATUSES,
  type OfferStatus,
} from './offer-status.model.ts'
import * as repo from './offer-template.repository.ts'
import { checkOfferWritable, offerSellerIds, type OfferSeller } from './offer-sellers.ts'

export interface OfferComponentInput {
  productCode: string
  mandatory?: boolean
  defaultQuantity?: number | string
  minQuantity?: number | string | null
  maxQuantity?: number | string | null
  sequence?: number
}

export interface OfferServiceInput {
  serviceTemplateCode: string
  mandatory?: boolean
  sequence?: number
}

/** The v1 body (`/api/v1/offerTemplates`). */
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
  offerServiceTemplates?: OfferServiceInput[]
  discountPlans?: string[]
  sellers?: string[]
  offerTemplateCategories?: string[]
}

/**
 * What a write asks for, whichever interface it came through: an absent field stays as it is, a list replaces its
 * set. `code` is the code of a new offer, or the new code of an existing one (a rename).
 */
export interface OfferWrite extends Omit<OfferInput, 'lifeCycleStatus'> {
  /** A status word of the interface (its dialect reads it). */
  status?: string
  /** The products by code: products that stay keep their component settings, new ones get the defaults. */
  productCodes?: string[]
}

/** The fields a problem can name, in the client's words. */
export type OfferWireField =
  | 'status'
  | 'validFrom'
  | 'validTo'
  | 'offerComponents'
  | 'productCode'
  | 'defaultQuantity'
  | 'minQuantity'
  | 'maxQuantity'
  | 'productCodes'
  | 'offerServiceTemplates'
  | 'discountPlans'
  | 'sellers'
  | 'offerTemplateCategories'

/**
 * The words of one offer interface. Both interfaces write the same rows under the same rules; a dialect only says
 * how the client names fields and statuses, so every problem is reported in the words the client sent.
 */
export interface OfferDialect {
  readonly field: Readonly<Record<OfferWireField, string>>
  /** The backend status a status word means for an offer now in `current` (undefined: a new offer). */
  readonly readStatus: (word: string, current: OfferStatus | undefined) => OfferStatus | undefined
  /** What the status field accepts, for the 400 message. */
  readonly statusExpected: string
  /** A backend status in the client's words, for messages. */
  readonly showStatus: (status: OfferStatus) => string
  /** The code answering a delete refused because of the offer's status. */
  readonly deleteRefusal: 'INVALID_STATE' | 'OFFER_STATUS_TRANSITION_INVALID'
}

/** The v1 words: field names as they are, backend statuses in any case. */
export const V1_DIALECT: OfferDialect = {
  field: {
    status: 'lifeCycleStatus',
    validFrom: 'validFrom',
    validTo: 'validTo',
    offerComponents: 'offerComponents',
    productCode: 'productCode',
    defaultQuantity: 'defaultQuantity',
    minQuantity: 'minQuantity',
    maxQuantity: 'maxQuantity',
    productCodes: 'productCodes',
    offerServiceTemplates: 'offerServiceTemplates',
    discountPlans: 'discountPlans',
    sellers: 'sellers',
    offerTemplateCategories: 'offerTemplateCategories',
  },
  readStatus: (word) => {
    const status = word.toUpperCase()
    return isOfferStatus(status) ? status : undefined
  },
  statusExpected: `expected one of ${OFFER_STATUSES.join(', ')}`,
  showStatus: (status) => status,
  deleteRefusal: 'INVALID_STATE',
}

const OFFER = () => registry.get('OfferTemplate')

const offerNotFound = (code: string) => new AppError('ENTITY_NOT_FOUND', `Offer ${code} not found`)

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

function listedTwice(codes: readonly string[], field: string, label: string, problems: ErrorDetail[]): void {
  const seen = new Set<string>()
  for (const [i, code] of codes.entries()) {
    if (seen.has(code)) problems.push({ field: `${field}[${i}]`, message: `${label} ${code} is listed twice` })
    seen.add(code)
  }
}

async function componentRows(
  tx: Db,
  inputs: readonly OfferComponentInput[],
  dialect: OfferDialect,
  problems: ErrorDetail[],
) {
  const rows: repo.ComponentRow[] = []
  const seen = new Set<string>()
  const names = dialect.field
  for (const [i, input] of inputs.entries()) {
    const field = (key: 'productCode' | 'defaultQuantity' | 'minQuantity' | 'maxQuantity') =>
      `${names.offerComponents}[${i}].${names[key]}`
    if (seen.has(input.productCode)) {
      problems.push({ field: field('productCode'), message: `product ${input.productCode} is listed twice` })
      continue
    }
    seen.add(input.productCode)
    const productId = await records.idOfCode(tx, registry.get('Product'), input.productCode)
    if (productId === undefined) {
      problems.push({ field: field('productCode'), message: `no product with code '${input.productCode}'` })
    }
    const quantity = (
      value: number | string | null | undefined,
      key: 'defaultQuantity' | 'minQuantity' | 'maxQuantity',
    ) => (value === undefined || value === null ? null : (readDecimal(value, field(key), problems, { min: 0 }) ?? null))
    const defaultQuantity = quantity(input.defaultQuantity ?? 1, 'defaultQuantity')
    const min = quantity(input.minQuantity, 'minQuantity')
    const max = quantity(input.maxQuantity, 'maxQuantity')
    if (min && max && min.gt(max))
      problems.push({ field: field('maxQuantity'), message: `expected at least ${names.minQuantity}` })
    if (defaultQuantity && ((min && defaultQuantity.lt(min)) || (max && defaultQuantity.gt(max)))) {
      problems.push({
        field: field('defaultQuantity'),
        message: `expected a value between ${names.minQuantity} and ${names.maxQuantity}`,
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

/**
 * Writes the link lists the input carries (each replaces the whole set), validating every code first. `sellers`:
 * the offer's sellers before the write (none for a new offer), which the caller's seller rule starts from.
 */
async function writeLinks(
  tx: Db,
  offerId: number,
  input: OfferWrite,
  dialect: OfferDialect,
  sellers: readonly OfferSeller[],
  sellerCodes: SellerCodes,
) {
  const names = dialect.field
  const problems: ErrorDetail[] = []
  const writes: (() => Promise<void>)[] = []
  if (input.offerComponents && input.productCodes) {
    problems.push({
      field: names.productCodes,
      message: `send either ${names.productCodes} or ${names.offerComponents}, not both`,
    })
  }
  if (input.offerComponents) {
    const rows = await componentRows(tx, input.offerComponents, dialect, problems)
    writes.push(() => repo.replaceComponents(tx, offerId, rows))
  } else if (input.productCodes) {
    listedTwice(input.productCodes, names.productCodes, 'product', problems)
    const ids = await idsOf(tx, 'Product', 'product', names.productCodes, input.productCodes, problems)
    writes.push(() => repo.setProducts(tx, offerId, ids))
  }
  if (input.offerServiceTemplates) {
    const codes = input.offerServiceTemplates.map((s) => s.serviceTemplateCode)
    const field = names.offerServiceTemplates
    const ids = await idsOf(tx, 'ServiceTemplate', 'service template', field, codes, problems)
    if (new Set(codes).size !== codes.length) problems.push({ field, message: 'a service template is listed twice' })
    const rows = input.offerServiceTemplates.map((s, i) => ({
      serviceTemplateId: ids[i]!,
      mandatory: s.mandatory ?? false,
      sequence: s.sequence ?? i,
    }))
    writes.push(() => repo.replaceServices(tx, offerId, rows))
  }
  if (input.discountPlans) {
    const ids = await idsOf(tx, 'DiscountPlan', 'discount plan', names.discountPlans, input.discountPlans, problems)
    writes.push(() => repo.replaceDiscountPlans(tx, offerId, ids))
  }
  const sellerIds = await offerSellerIds(tx, sellers, input.sellers, sellerCodes, names.sellers, problems)
  if (sellerIds) writes.push(() => repo.replaceSellers(tx, offerId, sellerIds))
  if (input.offerTemplateCategories) {
    const field = names.offerTemplateCategories
    const codes = input.offerTemplateCategories
    const ids = await idsOf(tx, 'OfferTemplateCategory', 'offer template category', field, codes, problems)
    writes.push(() => repo.replaceCategories(tx, offerId, ids))
  }
  if (problems.length > 0) throw validationError(problems)
  for (const write of writes) await write()
}

/** Validity bounds as SQL; the end must come after the start, whichever of them the write changes. */
async function validity(
  tx: Db,
  input: OfferWrite,
  current: records.WireRecord | undefined,
  dialect: OfferDialect,
): Promise<repo.Validity> {
  const from = input.validFrom === undefined ? (current?.validFrom as string | null | undefined) : input.validFrom
  const to = input.validTo === undefined ? (current?.validTo as string | null | undefined) : input.validTo
  // Only a date-only bound needs the tenant time zone (the start of that day there).
  const zone = [from, to].some((v) => typeof v === 'string' && repo.isDateOnly(v))
    ? (await readTenantSettings(tx)).timeZone
    : undefined
  const result: repo.Validity = {}
  if (input.validFrom !== undefined)
    result.validFrom = input.validFrom === null ? null : repo.instantSql(input.validFrom, zone)
  if (input.validTo !== undefined) result.validTo = input.validTo === null ? null : repo.instantSql(input.validTo, zone)
  if (from && to && (input.validFrom !== undefined || input.validTo !== undefined)) {
    const order = await one<{ ok: boolean }>(
      tx,
      sql`select ${repo.instantSql(to, zone)} > ${repo.instantSql(from, zone)} as ok`,
    )
    if (!order?.ok) {
      throw validationError([
        { field: dialect.field.validTo, message: `expected an instant after ${dialect.field.validFrom}` },
      ])
    }
  }
  return result
}

/** The offer code is the only unique value of an offer row: a unique violation there means the code is taken. */
async function claimingCode<T>(code: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (pgErrorOf(error)?.code === '23505') throw new AppError('ENTITY_ALREADY_EXISTS', `Offer ${code} already exists`)
    throw error
  }
}

/** Locks an offer the caller may `intent` (404 when unknown, 403 outside its sellers) and reads it and its sellers. */
async function lockOffer(
  tx: Db,
  code: string,
  actor: Caller,
  intent: 'change' | 'delete' = 'change',
): Promise<{ id: number; current: records.WireRecord; sellers: OfferSeller[] }> {
  const id = await records.lockIdOfCode(tx, OFFER(), code)
  if (id === undefined) throw offerNotFound(code)
  const sellers = await repo.sellersOf(tx, id)
  checkOfferWritable(code, sellers, actor.sellerCodes, intent)
  return { id, current: (await records.findById(tx, OFFER(), id))!, sellers }
}

/**
 * Creates an offer inside `tx` and returns its id. A new offer starts in IN_STUDY, IN_DESIGN (the default),
 * IN_TEST, ACTIVE or LAUNCHED. A taken code, even by a create running at the same time, fails on the unique code:
 * 409, never two rows.
 */
export async function createOffer(
  tx: Db,
  input: OfferWrite & { code: string },
  actor: Caller,
  dialect: OfferDialect,
): Promise<number> {
  const status = input.status === undefined ? DEFAULT_STATUS : dialect.readStatus(input.status, undefined)
  if (status === undefined) throw validationError([{ field: dialect.field.status, message: dialect.statusExpected }])
  if (!INITIAL_STATUSES.includes(status)) {
    const allowed = INITIAL_STATUSES.map(dialect.showStatus).join(', ')
    throw validationError([
      {
        field: dialect.field.status,
        message: `a new offer starts in ${allowed}, not ${dialect.showStatus(status)}`,
      },
    ])
  }
  const bounds = await validity(tx, input, undefined, dialect)
  const id = await claimingCode(input.code, () =>
    repo.insertOffer(
      tx,
      {
        code: input.code,
        description: input.description ?? null,
        name: input.name ?? null,
        lifeCycleStatus: status,
        autoEndOfEngagement: input.autoEndOfEngagement ?? false,
        attributes: input.attributes ?? {},
      },
      bounds,
      actor.username,
    ),
  )
  await writeLinks(tx, id, input, dialect, [], actor.sellerCodes)
  return id
}

/**
 * Changes an offer inside `tx` (row locked) and returns its id: sent fields change, sent lists replace their set,
 * a different `code` renames it (409 when taken), a status change follows the transition table (else 422).
 */
export async function updateOffer(
  tx: Db,
  code: string,
  input: OfferWrite,
  actor: Caller,
  dialect: OfferDialect,
  outbox: Outbox,
): Promise<number> {
  const { id, current, sellers } = await lockOffer(tx, code, actor)
  const values: repo.OfferValues = {}
  if (input.status !== undefined) {
    const from = current.lifeCycleStatus as OfferStatus
    const to = dialect.readStatus(input.status, from)
    if (to === undefined) throw validationError([{ field: dialect.field.status, message: dialect.statusExpected }])
    if (!canMoveOffer(from, to)) {
      const allowed = nextOfferStatuses(from).map(dialect.showStatus)
      throw new AppError(
        'OFFER_STATUS_TRANSITION_INVALID',
        `Offer ${code} cannot move from ${dialect.showStatus(from)} to ${dialect.showStatus(to)}` +
          (allowed.length > 0 ? ` (it can move to ${allowed.join(', ')})` : ' (it can no longer change status)'),
      )
    }
    values.lifeCycleStatus = to
  }
  if (input.code !== undefined && input.code !== code) {
    if ((await records.idOfCode(tx, OFFER(), input.code)) !== undefined) {
      throw new AppError('ENTITY_ALREADY_EXISTS', `Offer ${input.code} already exists`)
    }
    values.code = input.code
  }
  if (input.description !== undefined) values.description = input.description
  if (input.name !== undefined) values.name = input.name
  if (input.autoEndOfEngagement !== undefined) values.autoEndOfEngagement = input.autoEndOfEngagement
  if (input.attributes !== undefined) values.attributes = input.attributes
  const bounds = await validity(tx, input, current, dialect)
  await claimingCode(input.code ?? code, () => repo.updateOffer(tx, id, values, bounds, actor.username))
  await writeLinks(tx, id, input, dialect, sellers, actor.sellerCodes)
  if (values.lifeCycleStatus !== undefined && values.lifeCycleStatus !== current.lifeCycleStatus) {
    await outbox.emit(tx, {
      type: 'offer.status_changed',
      aggregate: { type: 'offer', id },
      object: await offerV1View(tx, input.code ?? code),
      previous: { lifeCycleStatus: current.lifeCycleStatus },
    })
  }
  return id
}

/**
 * How many subscriptions of each status an offer has. Subscriptions are ordering's, and ordering builds on the
 * catalog: the app passes ordering's count in (src/app.ts), so the catalog never reads ordering's tables.
 */
export type OfferSubscriptions = (db: Db, offerId: number) => Promise<ReadonlyMap<string, number>>

/** The count of a catalog built without ordering (demo data, benchmarks), which never deletes an offer. */
export const withoutOrdering: OfferSubscriptions = () => {
  throw new InvariantError('deleting an offer needs the subscription counts of the ordering module (src/app.ts)')
}

/** "N subscription(s)" for a caller who sees every seller's; a seller-restricted one is told no count. */
const howMany = (n: number, what: string, sellerCodes: SellerCodes) =>
  sellerCodes === null ? `${n} ${what}${n === 1 ? '' : 's'}` : `${what}s`

/**
 * Deletes an offer inside `tx`. Never while subscriptions use it (ACTIVE ones: 422 OFFER_HAS_ACTIVE_SUBSCRIPTIONS;
 * others: 409, they keep it for their history); an offer that can be ordered must be retired first. The refusal
 * counts subscriptions of every seller, so it tells the count only to a caller who sees them all.
 */
export async function deleteOffer(
  tx: Db,
  code: string,
  actor: Caller,
  dialect: OfferDialect,
  subscriptionsOf: OfferSubscriptions,
): Promise<void> {
  const { id, current } = await lockOffer(tx, code, actor, 'delete')
  const subscriptions = await subscriptionsOf(tx, id)
  const active = subscriptions.get('ACTIVE') ?? 0
  if (active > 0) {
    throw new AppError(
      'OFFER_HAS_ACTIVE_SUBSCRIPTIONS',
      `Offer ${code} has ${howMany(active, 'ACTIVE subscription', actor.sellerCodes)}: it cannot be deleted while they run`,
    )
  }
  const status = current.lifeCycleStatus as OfferStatus
  if (!canDeleteOffer(status)) {
    throw new AppError(
      dialect.deleteRefusal,
      `Offer ${code} is ${dialect.showStatus(status)}: retire it before deleting it`,
    )
  }
  const others = [...subscriptions.values()].reduce((sum, n) => sum + n, 0)
  if (others > 0) {
    throw new AppError(
      'ENTITY_IN_USE',
      `Offer ${code} has ${howMany(others, 'subscription', actor.sellerCodes)}: it stays for their history`,
    )
  }
  await repo.deleteOffer(tx, id)
}

/** Adds a product to an offer as a component with the default settings; a product already there stays as it is. */
export async function addOfferProduct(
  tx: Db,
  code: string,
  productCode: string,
  actor: Caller,
  field: string,
): Promise<void> {
  const { id } = await lockOffer(tx, code, actor)
  const productId = await records.idOfCode(tx, registry.get('Product'), productCode)
  if (productId === undefined) throw validationError([{ field, message: `no product with code '${productCode}'` }])
  if (await repo.addProduct(tx, id, productId)) await repo.updateOffer(tx, id, {}, {}, actor.username)
}

/** Removes a product (its component) from an offer; 404 when the offer does not have it. */
export async function removeOfferProduct(tx: Db, code: string, productCode: string, actor: Caller): Promise<void> {
  const { id } = await lockOffer(tx, code, actor)
  if (!(await repo.removeProduct(tx, id, productCode))) {
    throw new AppError('NOT_FOUND', `Product ${productCode} is not a product of offer ${code}`)
  }
  await repo.updateOffer(tx, id, {}, {}, actor.username)
}

const fromV1 = ({ lifeCycleStatus, ...rest }: OfferInput): OfferWrite =>
  lifeCycleStatus === undefined ? rest : { ...rest, status: lifeCycleStatus }

/** An offer as its v1 resource shows it: the record with its components, services, plans, sellers, categories. */
export async function offerV1View(db: Db, code: string) {
  const record = await records.findByCode(db, OFFER(), code)
  if (!record) throw offerNotFound(code)
  const links = (await repo.linksOf(db, [record.id as number])).get(record.id as number)!
  return { ...record, ...links }
}

/** v1 offer templates with their components (products), services, allowed discount plans, sellers and categories. */
export function createOfferTemplateService(deps: {
  db: Db
  records: ResourceService
  outbox: Outbox
  offerSubscriptions: OfferSubscriptions
}) {
  const get = offerV1View

  return {
    get: (code: string) => get(deps.db, code),

    async list(query: ListQuery) {
      const page = await deps.records.list(query)
      const links = await repo.linksOf(
        deps.db,
        page.data.map((r) => r.id as number),
      )
      return { ...page, data: page.data.map((r) => ({ ...r, ...links.get(r.id as number)! })) }
    },

    create: (input: OfferInput & { code: string }, actor: Caller) =>
      withTransaction(deps.db, async (tx) => {
        await createOffer(tx, { ...fromV1(input), code: input.code }, actor, V1_DIALECT)
        return get(tx, input.code)
      }),

    update: (code: string, input: OfferInput, actor: Caller) =>
      withTransaction(deps.db, async (tx) => {
        await updateOffer(tx, code, fromV1(input), actor, V1_DIALECT, deps.outbox)
        return get(tx, input.code ?? code)
      }),

    delete: (code: string, actor: Caller) =>
      withTransaction(deps.db, (tx) => deleteOffer(tx, code, actor, V1_DIALECT, deps.offerSubscriptions)),
  }
}

export type OfferTemplateService = ReturnType<typeof createOfferTemplateService>
