import type { Clock } from '../../kernel/clock.ts'
import { withTransaction } from '../../kernel/db/transaction.ts'
import { readDay } from '../../kernel/time-zone.ts'
import type { Db } from '../../kernel/db/database.ts'
import { AppError, validationError } from '../../kernel/errors.ts'
import { registry } from '../../kernel/model/index.ts'
import { readTenantSettings, tenantToday } from '../../kernel/settings.ts'
import * as records from '../../kernel/resources/resource.repository.ts'
import { auditable, isoInstant, planPublication } from '../pricing/index.ts'
import { versionValidOn } from './product-version.model.ts'
import * as repo from './product.repository.ts'

export interface ProductVersionInput {
  shortDescription?: string | null
  validFrom?: string | null
  validTo?: string | null
}

const PRODUCT = () => registry.get('Product')

/** The message the catalog document gives for a link change on a version that is not DRAFT (a 400). */
function notDraft(what: 'attributes' | 'charges' | 'version', status: string): AppError {
  const message =
    what === 'version'
      ? `Cannot modify non-DRAFT version. Current status: ${status}`
      : `Cannot modify ${what} on non-DRAFT version. Current status: ${status}`
  return new AppError('VALIDATION_FAILED', message, { details: [{ field: 'version', message }] })
}

/**
 * A validity bound as a day: a date-time counts as its day in the tenant time zone (one without an offset is
 * already wall-clock time there); a value that is no date is left for validation to refuse.
 */
function dayOf(value: string | null | undefined, timeZone: string): string | null | undefined {
  if (value === undefined || value === null) return value
  return readDay(value, timeZone) ?? value
}

/** The input's validity bounds as days. */
async function days(db: Db, input: ProductVersionInput): Promise<ProductVersionInput> {
  if (input.validFrom == null && input.validTo == null) return input
  const zone = (await readTenantSettings(db)).timeZone
  return { ...input, validFrom: dayOf(input.validFrom, zone), validTo: dayOf(input.validTo, zone) }
}

function checkValidity(validFrom: string | null, validTo: string | null): void {
  if (validFrom !== null && validTo !== null && validTo <= validFrom) {
    throw validationError([{ field: 'validTo', message: 'expected a date after validFrom (the end is exclusive)' }])
  }
}

/**
 * Product versions: DRAFT (attributes and charges can be linked) then PUBLISHED on a timeline where no two published
 * versions overlap: publishing closes the open-ended predecessor at the new version's start.
 */
export function createProductService(deps: { db: Db; clock: Clock }) {
  async function productId(db: Db, code: string, lock: boolean): Promise<number> {
    const id = lock ? await records.lockIdOfCode(db, PRODUCT(), code) : await records.idOfCode(db, PRODUCT(), code)
    if (id === undefined) throw new AppError('ENTITY_NOT_FOUND', `Product ${code} not found`)
    return id
  }

  async function version(db: Db, productCode: string, id: number, number: number): Promise<repo.ProductVersionRow> {
    const found = await repo.lockVersion(db, id, number)
    if (!found) throw new AppError('ENTITY_NOT_FOUND', `Product ${productCode} has no version ${number}`)
    return found
  }

  async function wire(db: Db, productCode: string, row: repo.ProductVersionRow) {
    return {
      code: productCode,
      productCode,
      version: row.version,
      status: row.status,
      shortDescription: row.shortDescription,
      validFrom: row.validFrom,
      validTo: row.validTo,
      publishedAt: isoInstant(row.publishedAt),
      attributes: await repo.attributeCodes(db, row.id),
      charges: await repo.chargeCodes(db, row.id),
      auditable: auditable(row),
    }
  }

  async function reference(db: Db, entity: string, label: string, code: string): Promise<number> {
    const id = await records.idOfCode(db, registry.get(entity), code)
    if (id === undefined) throw new AppError('ENTITY_NOT_FOUND', `${label} ${code} not found`)
    return id
  }

  /** Runs a change of a DRAFT version's links under the product lock, answering the version. */
  async function changeLinks(
    productCode: string,
    number: number,
    what: 'attributes' | 'charges',
    change: (tx: Db, versionId: number) => Promise<void>,
  ) {
    return withTransaction(deps.db, async (tx) => {
      const id = await productId(tx, productCode, true)
      const row = await version(tx, productCode, id, number)
      if (row.status !== 'DRAFT') throw notDraft(what, row.status)
      await change(tx, row.id)
      return wire(tx, productCode, row)
    })
  }

  const listVersions = async (productCode: string) => {
    const id = await productId(deps.db, productCode, false)
    const rows = await repo.versionsOf(deps.db, id)
    return { productCode, versions: await Promise.all(rows.map((row) => wire(deps.db, productCode, row))) }
  }

  return {
    listVersions,

    /**
     * The version an order subscribing on `day` (default: the tenant's today) takes when it names none: the PUBLISHED
     * version valid that day, the rule order placement applies (`versionValidOn`); null when there is none.
     */
    async orderableVersion(productCode: string, dayText: string | undefined) {
      const { today, timeZone } = await tenantToday(deps.db, deps.clock)
      const day = dayText === undefined ? today : readDay(dayText, timeZone)
      if (day === undefined) throw validationError([{ field: 'day', message: 'expected a date (yyyy-MM-dd)' }])
      const { versions } = await listVersions(productCode)
      return { productCode, day, version: versionValidOn(versions, day) ?? null }
    },

    async getVersion(productCode: string, number: number) {
      return withTransaction(deps.db, async (tx) => {
        const id = await productId(tx, productCode, false)
        return wire(tx, productCode, await version(tx, productCode, id, number))
      })
    },

    /** A new DRAFT with the next version number (the product lock makes concurrent creations number in turn). */
    async createVersion(productCode: string, sent: ProductVersionInput, actor: string) {
      return withTransaction(deps.db, async (tx) => {
        const id = await productId(tx, productCode, true)
        const input = await days(tx, sent)
        const validFrom = input.validFrom ?? null
        const validTo = input.validTo ?? null
        checkValidity(validFrom, validTo)
        const number = await repo.nextVersionNumber(tx, id)
        await repo.insertVersion(
          tx,
          { productId: id, version: number, shortDescription: input.shortDescription ?? null, validFrom, validTo },
          actor,
        )
        return wire(tx, productCode, await version(tx, productCode, id, number))
      })
    },

    async updateVersion(productCode: string, number: number, sent: ProductVersionInput, actor: string) {
      return withTransaction(deps.db, async (tx) => {
        const id = await productId(tx, productCode, true)
        const input = await days(tx, sent)
        const row = await version(tx, productCode, id, number)
        if (row.status !== 'DRAFT') throw notDraft('version', row.status)
        const next = {
          shortDescription: input.shortDescription === undefined ? row.shortDescription : input.shortDescription,
          validFrom: input.validFrom === undefined ? row.validFrom : input.validFrom,
          validTo: input.validTo === undefined ? row.validTo : input.validTo,
        }
        checkValidity(next.validFrom, next.validTo)
        await repo.updateVersion(tx, row.id, next, actor)
        return wire(tx, productCode, await version(tx, productCode, id, number))
      })
    },

    async deleteVersion(productCode: string, number: number) {
      await withTransaction(deps.db, async (tx) => {
        const id = await productId(tx, productCode, true)
        const row = await version(tx, productCode, id, number)
        if (row.status !== 'DRAFT') {
          throw new AppError(
            'INVALID_STATE',
            `Version ${number} of product ${productCode} is ${row.status}: only a DRAFT can be deleted`,
          )
        }
        await repo.deleteVersion(tx, row.id)
      })
    },

    /**
     * DRAFT → PUBLISHED. The version needs a start after the latest published version's start (else 409); the
     * open-ended predecessor is closed at that start. The product's first version may have no start: it then starts
     * on the publish day in the tenant time zone (a later one without start stays a 409).
     */
    async publish(productCode: string, number: number, actor: string) {
      return withTransaction(deps.db, async (tx) => {
        // The product lock serializes publications of its versions: two cannot both find the same predecessor.
        const id = await productId(tx, productCode, true)
        const row = await version(tx, productCode, id, number)
        if (row.status !== 'DRAFT') {
          throw new AppError('INVALID_STATE', `Version ${number} of product ${productCode} is ${row.status}, not DRAFT`)
        }
        const latest = await repo.latestPublished(tx, id)
        const publishDay = dayOf(deps.clock.now().toISOString(), (await readTenantSettings(tx)).timeZone)!
        const plan = planPublication(row, latest, { firstStartsOn: publishDay })
        if (!plan.ok) {
          throw new AppError(
            'INVALID_STATE',
            `Cannot publish version ${number} of product ${productCode}: ${plan.reason}`,
          )
        }
        if (latest && plan.closePredecessorAt) {
          await repo.updateVersion(tx, latest.id, { validTo: plan.closePredecessorAt }, actor)
        }
        await repo.updateVersion(
          tx,
          row.id,
          { status: 'PUBLISHED', publishedAt: deps.clock.now(), ...(plan.startAt ? { validFrom: plan.startAt } : {}) },
          actor,
        )
        return wire(tx, productCode, await version(tx, productCode, id, number))
      })
    },

    linkAttribute: (productCode: string, number: number, attributeCode: string) =>
      changeLinks(productCode, number, 'attributes', async (tx, versionId) => {
        const attribute = await records.findByCode(tx, registry.get('Attribute'), attributeCode)
        if (!attribute) throw new AppError('ENTITY_NOT_FOUND', `Attribute ${attributeCode} not found`)
        if (attribute.disabled === true) {
          throw validationError([{ field: 'attributeCode', message: `attribute ${attributeCode} is disabled` }])
        }
        await repo.linkAttribute(tx, versionId, attribute.id as number)
      }),

    unlinkAttribute: (productCode: string, number: number, attributeCode: string) =>
      changeLinks(productCode, number, 'attributes', async (tx, versionId) => {
        await repo.unlinkAttribute(tx, versionId, await reference(tx, 'Attribute', 'Attribute', attributeCode))
      }),

    linkCharge: (productCode: string, number: number, chargeCode: string) =>
      changeLinks(productCode, number, 'charges', async (tx, versionId) => {
        await repo.linkCharge(tx, versionId, await reference(tx, 'ChargeTemplate', 'Charge', chargeCode))
      }),

    unlinkCharge: (productCode: string, number: number, chargeCode: string) =>
      changeLinks(productCode, number, 'charges', async (tx, versionId) => {
        await repo.unlinkCharge(tx, versionId, await reference(tx, 'ChargeTemplate', 'Charge', chargeCode))
      }),

    async discountPlans(productCode: string) {
      const id = await productId(deps.db, productCode, false)
      return { productCode, discountPlans: await repo.discountPlanCodes(deps.db, id) }
    },

    /** Links a discount plan to a product: an order may then select it on that product. */
    async linkDiscountPlan(productCode: string, planCode: string) {
      return withTransaction(deps.db, async (tx) => {
        const id = await productId(tx, productCode, true)
        await repo.linkDiscountPlan(tx, id, await reference(tx, 'DiscountPlan', 'Discount plan', planCode))
        return { productCode, discountPlans: await repo.discountPlanCodes(tx, id) }
      })
    },

    async unlinkDiscountPlan(productCode: string, planCode: string) {
      return withTransaction(deps.db, async (tx) => {
        const id = await productId(tx, productCode, true)
        await repo.unlinkDiscountPlan(tx, id, await reference(tx, 'DiscountPlan', 'Discount plan', planCode))
        return { productCode, discountPlans: await repo.discountPlanCodes(tx, id) }
      })
    },
  }
}

export type ProductService = ReturnType<typeof createProductService>
