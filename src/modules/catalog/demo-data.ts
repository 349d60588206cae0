import { systemCaller } from '../../kernel/caller.ts'
import { createOutbox } from '../../kernel/events/index.ts'
import { withTransaction } from '../../kernel/db/transaction.ts'
import { systemClock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import { registry } from '../../kernel/model/index.ts'
import * as records from '../../kernel/resources/resource.repository.ts'
import { createCatalogModule } from './catalog.module.ts'

const DEMO = 'demo'
const START = '2020-01-01'

/** Monthly internet price by tier × region; an empty region matches any region. */
const INTERNET_PRICES: [string, string, string][] = [
  ['GOLD', 'EU', '59.99'],
  ['GOLD', 'US', '64.99'],
  ['GOLD', '', '69.99'],
  ['SILVER', 'EU', '39.99'],
  ['SILVER', 'US', '44.99'],
  ['SILVER', '', '49.99'],
  ['BRONZE', '', '24.99'],
]

/**
 * The demo catalog, exercising every pricing model: a FLAT one-shot setup fee, a MATRIX recurring fee on tier × region,
 * a FORMULA data usage charge with a volume break, a product and offers using them, a legacy service, and a
 * PERCENTAGE and a FIXED discount plan. Built through the catalog's own services (so every rule applies), in one
 * transaction, after the accounts demo (currencies, tax classes, invoice sub-categories, calendar, units, articles).
 * Idempotent: does nothing when the TIER attribute exists or the accounts demo is missing.
 */
export async function seedCatalogDemo(db: Db): Promise<{ created: boolean }> {
  return withTransaction(db, async (tx) => {
    if ((await records.idOfCode(tx, registry.get('Attribute'), 'TIER')) !== undefined) return { created: false }
    if ((await records.idOfCode(tx, registry.get('Seller'), 'MAIN')) === undefined) return { created: false }
    const catalog = createCatalogModule({
      db: tx,
      actorOf: () => ({ username: DEMO }),
      outbox: createOutbox({ clock: systemClock }),
    })
    const actor = { username: DEMO }

    const attributes = catalog.records.attributes
    await attributes.create(
      {
        code: 'TIER',
        description: 'Service tier',
        attributeType: 'LIST_TEXT',
        allowedValues: ['GOLD', 'SILVER', 'BRONZE'],
      },
      actor,
    )
    await attributes.create(
      { code: 'REGION', description: 'Region', attributeType: 'LIST_TEXT', allowedValues: ['EU', 'US', 'APAC'] },
      actor,
    )

    const { charges, pricing } = catalog
    await charges.create(
      {
        code: 'CH_SETUP_FEE',
        description: 'Installation fee',
        type: 'ONESHOT',
        oneShotType: 'SUBSCRIPTION',
        invoiceSubCategory: 'SUB_ONESHOT',
        taxClass: 'NORMAL',
      },
      DEMO,
    )
    await pricing.saveDraft(
      'CH_SETUP_FEE',
      { pricingModel: 'FLAT', currency: 'EUR', validFrom: START, price: '49.99' },
      DEMO,
    )
    await pricing.publish('CH_SETUP_FEE', DEMO)

    await charges.create(
      {
        code: 'CH_INTERNET_MONTHLY',
        description: 'Internet access, monthly',
        type: 'RECURRING',
        invoiceSubCategory: 'SUB_RECURRING',
        taxClass: 'NORMAL',
        billingCalendar: 'MONTHLY',
      },
      DEMO,
    )
    await pricing.saveDraft(
      'CH_INTERNET_MONTHLY',
      {
        pricingModel: 'MATRIX',
        currency: 'EUR',
        validFrom: START,
        columns: [
          { code: 'tier', type: 'String', position: 0, attributeCode: 'TIER' },
          { code: 'region', type: 'String', position: 1, attributeCode: 'REGION' },
        ],
        rows: INTERNET_PRICES.map(([tier, region, price]) => ({
          price,
          values: [
            { dimensionCode: 'tier', stringValue: tier },
            { dimensionCode: 'region', stringValue: region },
          ],
        })),
      },
      DEMO,
    )
    await pricing.publish('CH_INTERNET_MONTHLY', DEMO)

    await charges.create(
      {
        code: 'CH_DATA_USAGE',
        description: 'Data volume, per MB',
        type: 'USAGE',
        invoiceSubCategory: 'SUB_USAGE',
        taxClass: 'NORMAL',
        inputUnitOfMeasure: 'MB',
        ratingUnitOfMeasure: 'MB',
        filterParam1: 'DATA',
      },
      DEMO,
    )
    // Volume break: beyond 10 GB in a rating, every MB costs half.
    await pricing.saveDraft(
      'CH_DATA_USAGE',
      { pricingModel: 'FORMULA', currency: 'EUR', validFrom: START, price_fx: '#{quantity > 10240 ? 0.005 : 0.01}' },
      DEMO,
    )
    await pricing.publish('CH_DATA_USAGE', DEMO)

    await charges.create(
      {
        code: 'CH_SUPPORT',
        description: 'Premium support, monthly',
        type: 'RECURRING',
        invoiceSubCategory: 'SUB_RECURRING',
        taxClass: 'NORMAL',
        billingCalendar: 'MONTHLY',
      },
      DEMO,
    )
    await pricing.saveDraft(
      'CH_SUPPORT',
      { pricingModel: 'FLAT', currency: 'EUR', validFrom: START, price: '9.90' },
      DEMO,
    )
    await pricing.publish('CH_SUPPORT', DEMO)

    await catalog.records.products.create(
      { code: 'PR_INTERNET', description: 'Fibre internet access', name: 'Internet', productLine: 'CONNECTIVITY' },
      actor,
    )
    const { products } = catalog
    await products.createVersion('PR_INTERNET', { shortDescription: 'Launch version', validFrom: START }, DEMO)
    for (const attribute of ['TIER', 'REGION']) await products.linkAttribute('PR_INTERNET', 1, attribute)
    for (const charge of ['CH_SETUP_FEE', 'CH_INTERNET_MONTHLY', 'CH_DATA_USAGE']) {
      await products.linkCharge('PR_INTERNET', 1, charge)
    }
    await products.publish('PR_INTERNET', 1, DEMO)

    await catalog.services.create(
      { code: 'SE_PREMIUM_SUPPORT', description: 'Premium support', charges: ['CH_SUPPORT'] },
      DEMO,
    )

    const { discounts } = catalog
    await discounts.create(
      { code: 'DP_WELCOME_10', description: 'Welcome: 10 % off', discountPlanType: 'OFFER', sequence: 1 },
      DEMO,
    )
    await discounts.createItem(
      'DP_WELCOME_10',
      {
        code: 'DPI_WELCOME_10',
        description: '10 % off',
        discountPlanItemType: 'PERCENTAGE',
        discountValue: '10',
        accountingArticle: 'ART_DISCOUNT',
      },
      DEMO,
    )
    await discounts.activate('DP_WELCOME_10', DEMO)
    await discounts.create(
      { code: 'DP_LOYALTY_5', description: 'Loyalty: 5 EUR off', discountPlanType: 'PRODUCT', sequence: 2 },
      DEMO,
    )
    await discounts.createItem(
      'DP_LOYALTY_5',
      {
        code: 'DPI_LOYALTY_5',
        description: '5 EUR off',
        discountPlanItemType: 'FIXED',
        discountValue: '5',
        accountingArticle: 'ART_DISCOUNT',
      },
      DEMO,
    )
    await discounts.activate('DP_LOYALTY_5', DEMO)
    await products.linkDiscountPlan('PR_INTERNET', 'DP_LOYALTY_5')

    await catalog.records.offerTemplateCategories.create({ code: 'INTERNET', name: 'Internet' }, actor)
    await catalog.offers.create(
      {
        code: 'OF_INTERNET',
        name: 'Fibre internet',
        description: 'Fibre internet with optional premium support',
        lifeCycleStatus: 'ACTIVE',
        validFrom: START,
        offerComponents: [
          { productCode: 'PR_INTERNET', mandatory: true, defaultQuantity: 1, minQuantity: 1, maxQuantity: 1 },
        ],
        offerServiceTemplates: [{ serviceTemplateCode: 'SE_PREMIUM_SUPPORT', mandatory: false }],
        discountPlans: ['DP_WELCOME_10'],
        sellers: ['MAIN'],
        offerTemplateCategories: ['INTERNET'],
        attributes: { maxSpeedMbps: 1000, technology: 'FTTH' },
      },
      systemCaller(DEMO),
    )
    await catalog.offers.create(
      {
        code: 'OF_INTERNET_NEXT',
        name: 'Fibre internet, next generation',
        description: 'In design',
        offerComponents: [{ productCode: 'PR_INTERNET', mandatory: true }],
        offerTemplateCategories: ['INTERNET'],
      },
      systemCaller(DEMO),
    )
    return { created: true }
  })
}
