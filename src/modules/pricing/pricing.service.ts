import { sql } from 'drizzle-orm'
import { withTransaction } from '../../kernel/db/transaction.ts'
import { dayIn } from '../../kernel/time-zone.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import type { Db } from '../../kernel/db/database.ts'
import { decimalJson } from '../../kernel/decimal-json.ts'
import { AppError, validationError, type ErrorDetail } from '../../kernel/errors.ts'
import { money } from '../../kernel/money.ts'
import type { Clock } from '../../kernel/clock.ts'
import { registry } from '../../kernel/model/index.ts'
import { cachedTenantSettings } from '../../kernel/settings.ts'
import * as records from '../../kernel/resources/resource.repository.ts'
import { FormulaError, parsePriceFormula } from './el/index.ts'
import { decimalWire, readDecimal, readUnitPrice } from './decimal-input.ts'
import {
  validateMatrix,
  type MatrixAttribute,
  type MatrixColumnInput,
  type MatrixRowInput,
  type ValidMatrix,
} from './matrix-definition.ts'
import { isRangeColumn, priceUnit, type MatrixCell, type PricingDefinition } from './models/index.ts'
import * as repo from './pricing.repository.ts'
import { pricingDefinition } from './pricing-definition.ts'
import { planPublication, versionOn } from './timeline.model.ts'
import { auditable, isoInstant } from './wire.ts'

export interface DraftInput {
  pricingModel: 'FLAT' | 'MATRIX' | 'FORMULA'
  currency: string
  validFrom?: string | null
  price?: number | string | null
  price_fx?: string
  columns?: MatrixColumnInput[]
  rows?: MatrixRowInput[]
}

export interface EvaluateInput {
  quantity?: number | string
  attributes?: Record<string, string>
  date?: string
  version?: number
}

const CHARGE = () => registry.get('ChargeTemplate')

function cellWire(type: string, cell: MatrixCell) {
  if (!isRangeColumn(type as never)) return { dimensionCode: cell.dimensionCode, stringValue: cell.stringValue ?? '' }
  const bound = (value: string | null | undefined) =>
    value === null || value === undefined ? null : type === 'Range_Numeric' ? decimalWire(value) : value
  return { dimensionCode: cell.dimensionCode, fromValue: bound(cell.fromValue), toValue: bound(cell.toValue) }
}

/** A version as the API shows it: FORMULA adds `price_fx`, MATRIX adds columns (with attribute data) and rows. */
export function versionWire(stored: repo.StoredVersion) {
  const v = stored.version
  const typeOf = new Map(stored.columns.map((c) => [c.code, c.type]))
  return {
    version: v.version,
    status: v.status,
    pricingModel: v.pricingModel,
    currency: v.currencyCode,
    validFrom: v.validFrom,
    validTo: v.validTo,
    price: decimalWire(v.price),
    ...(v.pricingModel === 'FORMULA' ? { price_fx: v.priceFx ?? '' } : {}),
    ...(v.pricingModel === 'MATRIX'
      ? {
          columns: stored.columns.map((c) => ({
            code: c.code,
            type: c.type,
            position: c.position,
            attributeCode: c.attributeCode,
            label: c.attributeDescription ?? c.attributeCode,
            isRange: isRangeColumn(c.type),
            allowedValues: c.allowedValues,
          })),
          rows: stored.rows.map((r) => ({
            priority: r.priority,
            price: decimalWire(r.price),
            description: r.description,
            values: r.values.map((cell) => cellWire(typeOf.get(cell.dimensionCode) ?? 'String', cell)),
          })),
        }
      : {}),
    publishedAt: isoInstant(v.publishedAt),
    auditable: auditable(v),
  }
}

/** The pure pricing definition of a stored version, for the rating engine. */
export const definitionOf = (stored: repo.StoredVersion): PricingDefinition =>
  pricingDefinition(stored.version, stored.columns, stored.rows)

/** The published version of a charge valid on a day, among its stored versions (the timeline's one rule). */
const publishedOn = (all: readonly repo.StoredVersion[], day: string): repo.StoredVersion | undefined => {
  const valid = versionOn(
    all.filter((v) => v.version.status === 'PUBLISHED').map((v) => v.version),
    day,
  )
  return valid && all.find((v) => v.version.id === valid.id)
}

function forbid(problems: ErrorDetail[], field: string, present: boolean, model: string) {
  if (present) problems.push({ field, message: `does not apply to a ${model} pricing` })
}

/** Model-specific shape of a draft: which fields each model takes. */
function checkModelFields(input: DraftInput): ErrorDetail[] {
  const problems: ErrorDetail[] = []
  const model = input.pricingModel
  const priceGiven = input.price !== undefined && input.price !== null
  if (model === 'FLAT' && !priceGiven) problems.push({ field: 'price', message: 'a FLAT pricing needs a price' })
  if (model !== 'FLAT' && priceGiven && !money(input.price!).isZero()) {
    problems.push({ field: 'price', message: `a ${model} pricing takes no price (its stored price is 0)` })
  }
  if (model === 'FORMULA' && input.price_fx === undefined) {
    problems.push({ field: 'price_fx', message: 'a FORMULA pricing needs price_fx' })
  }
  if (model === 'MATRIX') {
    if (input.columns === undefined) problems.push({ field: 'columns', message: 'a MATRIX pricing needs columns' })
    if (input.rows === undefined) problems.push({ field: 'rows', message: 'a MATRIX pricing needs rows' })
  }
  forbid(problems, 'price_fx', model !== 'FORMULA' && input.price_fx !== undefined, model)
  forbid(problems, 'columns', model !== 'MATRIX' && input.columns !== undefined, model)
  forbid(problems, 'rows', model !== 'MATRIX' && input.rows !== undefined, model)
  return problems
}

/** Pricing versions of charges: one mutable draft, published onto an end-exclusive timeline. */
export function createPricingService(deps: { db: Db; clock: Clock; outbox: Outbox }) {
  async function chargeId(db: Db, code: string, lock: boolean): Promise<number> {
    const id = lock ? await records.lockIdOfCode(db, CHARGE(), code) : await records.idOfCode(db, CHARGE(), code)
    if (id === undefined) throw new AppError('ENTITY_NOT_FOUND', `Charge ${code} not found`)
    return id
  }

  async function matrixAttributes(db: Db, columns: readonly MatrixColumnInput[]) {
    const found = new Map<string, MatrixAttribute & { id: number }>()
    for (const code of new Set(columns.map((c) => c.attributeCode))) {
      const record = await records.findByCode(db, registry.get('Attribute'), code)
      if (record) {
        found.set(code, {
          id: record.id as number,
          code,
          attributeType: record.attributeType as string,
          allowedValues: record.allowedValues as string[],
          disabled: record.disabled as boolean,
        })
      }
    }
    return found
  }

  async function versions(db: Db, id: number) {
    return (await repo.versionsOfCharge(db, id)).map(versionWire)
  }

  return {
    async list(code: string) {
      return { pricingVersions: await versions(deps.db, await chargeId(deps.db, code, false)) }
    },

    /** Creates the charge's draft (next version number) or replaces the existing one: one mutable draft per charge. */
    async saveDraft(code: string, input: DraftInput, actor: string) {
      return withTransaction(deps.db, async (tx) => {
        // The charge row lock serializes drafts and publications of one charge.
        const id = await chargeId(tx, code, true)
        const problems = checkModelFields(input)
        const currencyId = await records.idOfCode(tx, registry.get('TradingCurrency'), input.currency)
        if (currencyId === undefined) {
          problems.push({ field: 'currency', message: `no trading currency with code '${input.currency}'` })
        }
        const price =
          input.pricingModel === 'FLAT' && input.price !== undefined && input.price !== null
            ? readUnitPrice(input.price, 'price', problems)
            : money(0)
        let matrix: ValidMatrix | undefined
        const attributeIds = new Map<string, number>()
        if (input.pricingModel === 'MATRIX' && input.columns && input.rows) {
          const attributes = await matrixAttributes(tx, input.columns)
          for (const [attributeCode, attribute] of attributes) attributeIds.set(attributeCode, attribute.id)
          const validated = validateMatrix(input.columns, input.rows, attributes)
          problems.push(...validated.problems)
          matrix = validated.matrix
        }
        if (problems.length > 0) throw validationError(problems)
        if (input.pricingModel === 'FORMULA') {
          try {
            parsePriceFormula(input.price_fx!)
          } catch (error) {
            if (!(error instanceof FormulaError)) throw error
            throw new AppError('INVALID_FORMULA', `price_fx: ${error.message}`, {
              details: [{ field: 'price_fx', message: error.message }],
            })
          }
        }
        const values: repo.DraftValues = {
          pricingModel: input.pricingModel,
          currencyId: currencyId!,
          validFrom: input.validFrom ?? null,
          price: price!.toFixed(),
          priceFx: input.pricingModel === 'FORMULA' ? input.price_fx! : null,
        }
        const draft = await repo.findDraft(tx, id)
        let versionId: number
        if (draft) {
          versionId = draft.id
          await repo.updateDraft(tx, versionId, values, actor)
        } else {
          versionId = await repo.insertDraft(tx, id, await repo.nextVersionNumber(tx, id), values, actor)
        }
        await repo.replaceMatrix(tx, versionId, matrix, attributeIds)
        return { pricingVersions: await versions(tx, id) }
      })
    },

    /**
     * Publishes the draft: it must start after the latest published version, which is closed at the draft's start
     * (end-exclusive). The charge becomes ACTIVE with its first publication.
     */
    async publish(code: string, actor: string) {
      return withTransaction(deps.db, async (tx) => {
        const id = await chargeId(tx, code, true)
        const draft = await repo.findDraft(tx, id)
        if (!draft) throw new AppError('INVALID_STATE', `Charge ${code} has no draft pricing version to publish`)
        const latest = await repo.latestPublished(tx, id)
        const plan = planPublication(draft, latest, { firstStartsOn: null })
        if (!plan.ok) {
          throw new AppError(
            'INVALID_STATE',
            `Cannot publish pricing version ${draft.version} of charge ${code}: ${plan.reason}`,
          )
        }
        if (latest && plan.closePredecessorAt) await repo.close(tx, latest.id, plan.closePredecessorAt, actor)
        await repo.publish(tx, draft.id, actor)
        const charge = await records.findById(tx, CHARGE(), id)
        if (charge?.status !== 'ACTIVE') {
          await records.update(
            tx,
            CHARGE(),
            id,
            new Map([
              ['status', sql`'ACTIVE'`],
              ['updated', sql`now()`],
              ['updater', sql`${actor}`],
            ]),
          )
        }
        const all = await repo.versionsOfCharge(tx, id)
        const published = all.find((v) => v.version.id === draft.id)!
        await deps.outbox.emit(tx, {
          type: 'price.published',
          aggregate: { type: 'charge', id },
          object: { ...versionWire(published), chargeCode: code },
        })
        return {
          ...versionWire(published),
          chargeCode: code,
          chargeStatus: 'ACTIVE',
          pricingVersions: all.map(versionWire),
        }
      })
    },

    async discardDraft(code: string): Promise<void> {
      await withTransaction(deps.db, async (tx) => {
        const id = await chargeId(tx, code, true)
        const draft = await repo.findDraft(tx, id)
        if (!draft) throw new AppError('ENTITY_NOT_FOUND', `Charge ${code} has no draft pricing version`)
        await repo.deleteVersion(tx, draft.id)
      })
    },

    /**
     * Prices one unit of a charge for a quantity and attribute values, with the version valid on `date` (default:
     * today in the tenant time zone) or with the given version (a draft included): what rating will compute.
     */
    async evaluate(code: string, input: EvaluateInput) {
      const db = deps.db
      const id = await chargeId(db, code, false)
      const all = await repo.versionsOfCharge(db, id)
      let stored: repo.StoredVersion | undefined
      let date: string | undefined
      if (input.version !== undefined) {
        stored = all.find((v) => v.version.version === input.version)
        if (!stored) throw new AppError('ENTITY_NOT_FOUND', `Charge ${code} has no pricing version ${input.version}`)
      } else {
        date = input.date ?? dayIn(deps.clock.now(), (await cachedTenantSettings(db)).timeZone)
        stored = publishedOn(all, date)
        if (!stored) throw new AppError('PRICE_NOT_FOUND', `Charge ${code} has no published price on ${date}`)
      }
      const problems: ErrorDetail[] = []
      const quantity = readDecimal(input.quantity ?? 1, 'quantity', problems)
      if (problems.length > 0) throw validationError(problems)
      const priced = priceUnit(definitionOf(stored), {
        quantity: quantity!,
        attributes: input.attributes ?? {},
        charge: { code },
        ...(date ? { subscription: { code: '', date } } : {}),
      })
      return {
        chargeCode: code,
        version: stored.version.version,
        status: stored.version.status,
        pricingModel: stored.version.pricingModel,
        currency: stored.version.currencyCode,
        quantity: decimalJson(quantity!),
        unitPrice: decimalJson(priced.unitPrice),
        explanation: priced.explanation,
      }
    },

    /**
     * The published pricing of a charge valid on a day (yyyy-MM-dd), as a pure definition for the rating engine;
     * undefined when the charge has no price that day.
     */
    async pricingOn(db: Db, chargeCode: string, day: string) {
      const id = await chargeId(db, chargeCode, false)
      const stored = publishedOn(await repo.versionsOfCharge(db, id), day)
      if (!stored) return undefined
      return {
        version: stored.version.version,
        currency: stored.version.currencyCode,
        definition: definitionOf(stored),
      }
    },
  }
}

export type PricingService = ReturnType<typeof createPricingService>
