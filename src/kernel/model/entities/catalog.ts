import * as t from '../../db/schema/index.ts'
import { defineEntity, manyToOne, oneToMany } from '../registry.ts'

const products = 'catalog.products'
const charges = 'catalog.charges'
const offers = 'catalog.offers'
const services = 'catalog.services'
const discounts = 'catalog.discounts'

export const ATTRIBUTE_TYPES = [
  'LIST_TEXT',
  'LIST_MULTIPLE_TEXT',
  'LIST_NUMERIC',
  'TEXT',
  'NUMERIC',
  'INTEGER',
  'BOOLEAN',
  'DATE',
  'EMAIL',
  'PHONE',
] as const

export const catalogEntities = [
  defineEntity({
    name: 'Attribute',
    package: 'cpq',
    table: t.attributes,
    resource: products,
    fields: {
      attributeType: { enum: ATTRIBUTE_TYPES },
      attributeCategory: { enum: ['REGULAR', 'CALCULATED'] },
    },
  }),
  defineEntity({
    name: 'ChargeTemplate',
    aliases: ['Charge'],
    package: 'catalog',
    table: t.chargeTemplates,
    resource: charges,
    fields: {
      type: { enum: ['RECURRING', 'USAGE', 'ONESHOT'] },
      oneShotType: { enum: ['SUBSCRIPTION', 'TERMINATION', 'OTHER'] },
      status: { enum: ['DRAFT', 'ACTIVE'], readOnly: true },
    },
    inheritance: {
      discriminator: 'type',
      subclasses: {
        RecurringChargeTemplate: 'RECURRING',
        UsageChargeTemplate: 'USAGE',
        OneShotChargeTemplate: 'ONESHOT',
      },
    },
    relations: {
      invoiceSubCategory: manyToOne('InvoiceSubCategory', 'invoiceSubCategoryId'),
      taxClass: manyToOne('TaxClass', 'taxClassId'),
      billingCalendar: manyToOne('Calendar', 'calendarId'),
      counterTemplate: manyToOne('CounterTemplate', 'counterTemplateId'),
      inputUnitOfMeasure: manyToOne('UnitOfMeasure', 'inputUnitOfMeasureId'),
      ratingUnitOfMeasure: manyToOne('UnitOfMeasure', 'ratingUnitOfMeasureId'),
      accountingArticle: manyToOne('AccountingArticle', 'accountingArticleId', { readOnly: true }),
      pricingVersions: oneToMany('PricingVersion', 'charge'),
    },
  }),
  defineEntity({
    name: 'PricingVersion',
    aliases: ['PricePlanMatrixVersion', 'PricePlanVersion'],
    package: 'catalog',
    table: t.pricingVersions,
    resource: charges,
    fields: {
      status: { enum: ['DRAFT', 'PUBLISHED'] },
      pricingModel: { enum: ['FLAT', 'MATRIX', 'FORMULA'] },
    },
    relations: {
      charge: manyToOne('ChargeTemplate', 'chargeId'),
      currency: manyToOne('TradingCurrency', 'currencyId'),
      columns: oneToMany('PricingMatrixColumn', 'pricingVersion'),
      rows: oneToMany('PricingMatrixRow', 'pricingVersion'),
    },
  }),
  defineEntity({
    name: 'PricingMatrixColumn',
    package: 'catalog',
    table: t.pricingMatrixColumns,
    resource: charges,
    relations: {
      pricingVersion: manyToOne('PricingVersion', 'pricingVersionId'),
      attribute: manyToOne('Attribute', 'attributeId'),
    },
  }),
  defineEntity({
    name: 'PricingMatrixRow',
    package: 'catalog',
    table: t.pricingMatrixRows,
    resource: charges,
    relations: { pricingVersion: manyToOne('PricingVersion', 'pricingVersionId') },
  }),
  defineEntity({
    name: 'Product',
    package: 'cpq',
    table: t.products,
    resource: products,
    relations: {
      productVersions: oneToMany('ProductVersion', 'product'),
      discountPlans: oneToMany('ProductDiscountPlan', 'product'),
    },
  }),
  defineEntity({
    name: 'ProductVersion',
    package: 'cpq',
    table: t.productVersions,
    resource: products,
    fields: { status: { enum: ['DRAFT', 'PUBLISHED'] } },
    relations: {
      product: manyToOne('Product', 'productId'),
      attributes: oneToMany('ProductVersionAttribute', 'productVersion'),
      charges: oneToMany('ProductVersionCharge', 'productVersion'),
    },
  }),
  defineEntity({
    name: 'ProductVersionAttribute',
    package: 'cpq',
    table: t.productVersionAttributes,
    resource: products,
    relations: {
      productVersion: manyToOne('ProductVersion', 'productVersionId'),
      attribute: manyToOne('Attribute', 'attributeId'),
    },
  }),
  defineEntity({
    name: 'ProductVersionCharge',
    package: 'cpq',
    table: t.productVersionCharges,
    resource: products,
    relations: {
      productVersion: manyToOne('ProductVersion', 'productVersionId'),
      charge: manyToOne('ChargeTemplate', 'chargeId'),
    },
  }),
  defineEntity({
    name: 'DiscountPlan',
    package: 'catalog',
    table: t.discountPlans,
    resource: discounts,
    fields: {
      discountPlanType: { enum: ['QUOTE', 'OFFER', 'PRODUCT', 'INVOICE', 'INVOICE_LINE', 'PROMO_CODE'] },
      status: { enum: ['DRAFT', 'ACTIVE', 'IN_USE', 'EXPIRED'], readOnly: true },
      statusDate: { readOnly: true },
      usedQuantity: { readOnly: true },
    },
    relations: { items: oneToMany('DiscountPlanItem', 'discountPlan') },
  }),
  defineEntity({
    name: 'DiscountPlanItem',
    package: 'catalog',
    table: t.discountPlanItems,
    resource: discounts,
    fields: { discountPlanItemType: { enum: ['PERCENTAGE', 'FIXED'] } },
    relations: {
      discountPlan: manyToOne('DiscountPlan', 'discountPlanId'),
      accountingArticle: manyToOne('AccountingArticle', 'accountingArticleId'),
    },
  }),
  defineEntity({
    name: 'ProductDiscountPlan',
    package: 'cpq',
    table: t.productDiscountPlans,
    resource: products,
    relations: {
      product: manyToOne('Product', 'productId'),
      discountPlan: manyToOne('DiscountPlan', 'discountPlanId'),
    },
  }),
  defineEntity({
    name: 'ServiceTemplate',
    package: 'catalog',
    table: t.serviceTemplates,
    resource: services,
    relations: { charges: oneToMany('ServiceChargeTemplate', 'serviceTemplate') },
  }),
  defineEntity({
    name: 'ServiceChargeTemplate',
    package: 'catalog',
    table: t.serviceChargeTemplates,
    resource: services,
    relations: {
      serviceTemplate: manyToOne('ServiceTemplate', 'serviceTemplateId'),
      charge: manyToOne('ChargeTemplate', 'chargeId'),
    },
  }),
  defineEntity({
    name: 'OfferTemplateCategory',
    package: 'catalog',
    table: t.offerTemplateCategories,
    resource: offers,
  }),
  defineEntity({
    name: 'OfferTemplate',
    package: 'catalog',
    table: t.offerTemplates,
    resource: offers,
    fields: {
      lifeCycleStatus: {
        enum: ['IN_STUDY', 'IN_DESIGN', 'IN_TEST', 'ACTIVE', 'LAUNCHED', 'RETIRED', 'OBSOLETE', 'REJECTED'],
      },
    },
    relations: {
      offerComponents: oneToMany('OfferComponent', 'offerTemplate'),
      offerServiceTemplates: oneToMany('OfferServiceTemplate', 'offerTemplate'),
      discountPlans: oneToMany('OfferDiscountPlan', 'offerTemplate'),
      sellers: oneToMany('OfferSeller', 'offerTemplate'),
      categories: oneToMany('OfferCategory', 'offerTemplate'),
    },
  }),
  defineEntity({
    name: 'OfferComponent',
    package: 'cpq',
    table: t.offerComponents,
    resource: offers,
    relations: {
      offerTemplate: manyToOne('OfferTemplate', 'offerTemplateId'),
      product: manyToOne('Product', 'productId'),
    },
  }),
  defineEntity({
    name: 'OfferServiceTemplate',
    package: 'catalog',
    table: t.offerServiceTemplates,
    resource: offers,
    relations: {
      offerTemplate: manyToOne('OfferTemplate', 'offerTemplateId'),
      serviceTemplate: manyToOne('ServiceTemplate', 'serviceTemplateId'),
    },
  }),
  defineEntity({
    name: 'OfferDiscountPlan',
    package: 'catalog',
    table: t.offerDiscountPlans,
    resource: offers,
    relations: {
      offerTemplate: manyToOne('OfferTemplate', 'offerTemplateId'),
      discountPlan: manyToOne('DiscountPlan', 'discountPlanId'),
    },
  }),
  defineEntity({
    name: 'OfferSeller',
    package: 'catalog',
    table: t.offerSellers,
    resource: offers,
    relations: {
      offerTemplate: manyToOne('OfferTemplate', 'offerTemplateId'),
      seller: manyToOne('Seller', 'sellerId'),
    },
  }),
  defineEntity({
    name: 'OfferCategory',
    package: 'catalog',
    table: t.offerCategories,
    resource: offers,
    relations: {
      offerTemplate: manyToOne('OfferTemplate', 'offerTemplateId'),
      category: manyToOne('OfferTemplateCategory', 'offerTemplateCategoryId'),
    },
  }),
]
