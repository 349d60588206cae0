import * as t from '../../db/schema/index.ts'
import { defineEntity, manyToOne, oneToMany } from '../registry.ts'

const wallets = 'billing.wallets'
const RESERVATION_STATUSES = ['OPEN', 'CONFIRMED', 'CANCELLED', 'EXPIRED'] as const

/** Counters (free units per period), prepaid reservations and the ledger of every balance and counter change. */
export const prepaidEntities = [
  defineEntity({
    name: 'CounterTemplate',
    package: 'catalog',
    table: t.counterTemplates,
    resource: 'catalog.charges',
    relations: { calendar: manyToOne('Calendar', 'calendarId') },
  }),
  defineEntity({
    name: 'CounterInstance',
    package: 'billing',
    table: t.counterInstances,
    resource: wallets,
    business: true,
    sellerPath: 'subscription.seller',
    relations: {
      counterTemplate: manyToOne('CounterTemplate', 'counterTemplateId'),
      subscription: manyToOne('Subscription', 'subscriptionId'),
      periods: oneToMany('CounterPeriod', 'counterInstance'),
    },
  }),
  defineEntity({
    name: 'CounterPeriod',
    package: 'billing',
    table: t.counterPeriods,
    resource: wallets,
    business: true,
    sellerPath: 'counterInstance.subscription.seller',
    fields: { value: { readOnly: true }, level: { readOnly: true } },
    relations: { counterInstance: manyToOne('CounterInstance', 'counterInstanceId') },
  }),
  defineEntity({
    name: 'Reservation',
    package: 'billing',
    table: t.reservations,
    resource: wallets,
    business: true,
    huge: true,
    sellerPath: 'seller',
    fields: { status: { enum: RESERVATION_STATUSES, readOnly: true }, type: { enum: ['USAGE', 'OFFER'] } },
    relations: {
      seller: manyToOne('Seller', 'sellerId'),
      userAccount: manyToOne('UserAccount', 'userAccountId'),
      subscription: manyToOne('Subscription', 'subscriptionId'),
      wallet: manyToOne('WalletInstance', 'walletId'),
      chargeInstance: manyToOne('ChargeInstance', 'chargeInstanceId'),
      offer: manyToOne('OfferTemplate', 'offerTemplateId'),
    },
  }),
  defineEntity({
    name: 'BalanceLedger',
    aliases: ['WalletLedger'],
    package: 'billing',
    table: t.balanceLedger,
    resource: wallets,
    business: true,
    huge: true,
    sellerPath: 'wallet.userAccount.billingAccount.customerAccount.customer.seller',
    fields: { type: { enum: ['CREDIT', 'HOLD', 'RELEASE', 'CONSUME'] } },
    relations: {
      wallet: manyToOne('WalletInstance', 'walletId'),
      counterPeriod: manyToOne('CounterPeriod', 'counterPeriodId'),
      reservation: manyToOne('Reservation', 'reservationId'),
    },
  }),
]
