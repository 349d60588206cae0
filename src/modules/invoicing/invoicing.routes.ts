import type { Caller } from '../../kernel/caller.ts'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { errorResponses, NoContent } from '../../kernel/http/schemas.ts'
import { principalOf } from '../../kernel/http/principal.ts'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import type { BillRunService } from './bill-run.service.ts'
import type { CreditNoteService } from './credit-note.service.ts'
import type { InvoiceService } from './invoice.service.ts'
import type { InvoicePdfService } from './invoice-pdf.service.ts'
import type { RuleService } from './rule.service.ts'
import type { SequenceService } from './sequence.service.ts'
import {
  accountOperationList,
  accountOperationQuery,
  billingAccountParams,
  billRunBody,
  billRunList,
  billRunListQuery,
  billRunView,
  cancelBody,
  creditNoteBody,
  idParams,
  invoiceIdParams,
  invoiceList,
  invoiceListQuery,
  invoiceView,
  previewBody,
  previewView,
  ruleBody,
  ruleList,
  ruleView,
  sequenceBody,
  sequenceList,
  sequenceParams,
  sequenceView,
  type RuleCreateBody,
} from './invoicing.schemas.ts'
import { CodeParams } from '../../kernel/http/schemas.ts'

const role = (name: string) => ({ policy: { role: name } })
const RUNS_VIEW = role('billing.billingRuns.view')
const RUNS_MANAGE = role('billing.billingRuns.manage')
const INVOICES_VIEW = role('billing.invoices.view')
const INVOICES_MANAGE = role('billing.invoices.manage')
const CREDIT_NOTES_MANAGE = role('billing.creditNotes.manage')

/** Bill runs, invoices, validation rules, sequences and accounting operations (invoicing-events.md §4). Thin. */
export function registerInvoicingRoutes(
  server: FastifyInstance,
  deps: {
    billRuns: BillRunService
    invoices: InvoiceService
    creditNotes: CreditNoteService
    pdfs: InvoicePdfService
    rules: RuleService
    sequences: SequenceService
    actorOf: ActorOf
  },
): void {
  const { billRuns, invoices, creditNotes, pdfs, rules, sequences, actorOf } = deps
  const app = server.withTypeProvider<TypeBoxTypeProvider>()
  const caller = (request: FastifyRequest): Caller => principalOf(request)

  const runTags = ['BillingRuns']
  app.post(
    '/api/v1/billingRuns',
    {
      config: RUNS_MANAGE,
      schema: {
        tags: runTags,
        summary:
          'Create a one-off bill run for a billing cycle, with its own aggregation rules; the job takes it at once',
        body: billRunBody,
        response: { 201: billRunView },
      },
    },
    async (request, reply) => reply.status(201).send(await billRuns.create(request.body, actorOf(request))),
  )
  app.get(
    '/api/v1/billingRuns',
    {
      config: RUNS_VIEW,
      schema: {
        tags: runTags,
        summary: 'List bill runs, newest first; filter by scheduleCode, billingCycle or status',
        querystring: billRunListQuery,
        response: { 200: billRunList },
      },
    },
    async (request) => billRuns.list(request.query),
  )
  app.get(
    '/api/v1/billingRuns/:id',
    {
      config: RUNS_VIEW,
      schema: {
        tags: runTags,
        summary: 'Get a bill run: its state, progress, counts and amounts',
        params: idParams,
        response: { 200: billRunView, ...errorResponses(404) },
      },
    },
    async (request) => billRuns.get(request.params.id),
  )
  app.post(
    '/api/v1/billingRuns/:id/advance',
    {
      config: RUNS_MANAGE,
      schema: {
        tags: runTags,
        summary:
          'Move a run on where it waits for a person: create its invoices (MANUAL), or validate its drafts; 409 when nothing waits',
        params: idParams,
        response: { 200: billRunView, ...errorResponses(404, 409) },
      },
    },
    async (request) => billRuns.advance(request.params.id, actorOf(request)),
  )
  app.post(
    '/api/v1/billingRuns/:id/cancel',
    {
      config: RUNS_MANAGE,
      schema: {
        tags: runTags,
        summary:
          'Cancel a run not validated: its lines and unvalidated invoices go, its operations become OPEN again (REOPEN) or CANCELED',
        params: idParams,
        body: cancelBody,
        response: { 200: billRunView, ...errorResponses(404, 409) },
      },
    },
    async (request) => billRuns.cancel(request.params.id, request.body?.walletOperations ?? 'REOPEN', actorOf(request)),
  )

  const invoiceTags = ['Invoices']
  app.get(
    '/api/v1/invoices',
    {
      config: INVOICES_VIEW,
      schema: {
        tags: invoiceTags,
        summary: 'List invoices and credit notes, newest first, without their lines',
        querystring: invoiceListQuery,
        response: { 200: invoiceList },
      },
    },
    async (request) => invoices.list(request.query, caller(request)),
  )
  app.get(
    '/api/v1/invoices/:id',
    {
      config: INVOICES_VIEW,
      schema: {
        tags: invoiceTags,
        summary: 'Get an invoice with its lines, taxes and accounting operation',
        params: invoiceIdParams,
        response: { 200: invoiceView, ...errorResponses(404) },
      },
    },
    async (request) => invoices.get(request.params.id, caller(request)),
  )
  app.get(
    '/api/v1/invoices/:id/pdf',
    {
      config: INVOICES_VIEW,
      schema: {
        tags: invoiceTags,
        summary:
          'The invoice’s PDF: a validated one’s stored document (rendered and stored if missing); a draft rendered now, marked DRAFT, without a number',
        params: invoiceIdParams,
        produces: ['application/pdf'],
        response: {
          200: {
            description: 'The PDF document (A4)',
            content: { 'application/pdf': { schema: Type.Unsafe<Buffer>({ type: 'string', format: 'binary' }) } },
          },
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      const pdf = await pdfs.pdf(request.params.id, caller(request))
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="${pdf.fileName}"`)
        .send(pdf.bytes)
    },
  )
  app.post(
    '/api/v1/invoices/:id/validate',
    {
      config: INVOICES_MANAGE,
      schema: {
        tags: invoiceTags,
        summary: 'Validate a draft, suspect or rejected invoice: its number, dates and accounting operation',
        params: invoiceIdParams,
        response: { 200: invoiceView, ...errorResponses(404, 409) },
      },
    },
    async (request) => invoices.validate(request.params.id, caller(request)),
  )
  app.post(
    '/api/v1/invoices/:id/cancel',
    {
      config: INVOICES_MANAGE,
      schema: {
        tags: invoiceTags,
        summary: 'Cancel an invoice not validated: its operations become OPEN again (REOPEN) or CANCELED',
        params: invoiceIdParams,
        body: cancelBody,
        response: { 200: invoiceView, ...errorResponses(404, 409) },
      },
    },
    async (request) => invoices.cancel(request.params.id, request.body?.walletOperations ?? 'REOPEN', caller(request)),
  )
  app.post(
    '/api/v1/invoices/:id/move',
    {
      config: INVOICES_MANAGE,
      schema: {
        tags: invoiceTags,
        summary: 'Move a suspect or rejected invoice into its cycle’s next bill run (created on demand)',
        params: invoiceIdParams,
        response: { 200: invoiceView, ...errorResponses(404, 409) },
      },
    },
    async (request) => invoices.move(request.params.id, caller(request)),
  )
  app.post(
    '/api/v1/invoices/:id/creditNotes',
    {
      config: CREDIT_NOTES_MANAGE,
      schema: {
        tags: invoiceTags,
        summary:
          'Issue a draft credit note of a validated invoice, whole or for amounts of its lines; 422 when the invoice’s credit notes would exceed it',
        params: invoiceIdParams,
        body: creditNoteBody,
        response: { 201: invoiceView, ...errorResponses(404, 409, 422) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await creditNotes.create(request.params.id, request.body, caller(request))),
  )
  app.post(
    '/api/v1/billingAccounts/:code/invoicePreview',
    {
      config: INVOICES_VIEW,
      schema: {
        tags: invoiceTags,
        summary: 'The invoices the next bill run would make for a billing account, computed and rolled back',
        params: billingAccountParams,
        body: previewBody,
        response: { 200: previewView, ...errorResponses(404) },
      },
    },
    async (request) => invoices.preview(request.params.code, request.body ?? {}, caller(request)),
  )

  const ruleTags = ['InvoiceValidationRules']
  const rulePath = '/api/v1/invoiceValidationRules'
  app.get(
    rulePath,
    {
      config: INVOICES_VIEW,
      schema: { tags: ruleTags, summary: 'List invoice validation rules, by priority', response: { 200: ruleList } },
    },
    async () => rules.list(),
  )
  app.get(
    `${rulePath}/:code`,
    {
      config: INVOICES_VIEW,
      schema: {
        tags: ruleTags,
        summary: 'Get an invoice validation rule',
        params: CodeParams,
        response: { 200: ruleView, ...errorResponses(404) },
      },
    },
    async (request) => rules.get(request.params.code),
  )
  app.post(
    rulePath,
    {
      config: INVOICES_MANAGE,
      schema: {
        tags: ruleTags,
        summary: 'Create a rule: a pricing formula over the invoice that, when true, makes it SUSPECT or REJECTED',
        body: ruleBody(true),
        response: { 201: ruleView, ...errorResponses(409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await rules.create(request.body as RuleCreateBody, actorOf(request))),
  )
  app.put(
    `${rulePath}/:code`,
    {
      config: INVOICES_MANAGE,
      schema: {
        tags: ruleTags,
        summary: 'Change a rule (partial: the fields sent change; null clears description, validFrom, validTo)',
        params: CodeParams,
        body: ruleBody(false),
        response: { 200: ruleView, ...errorResponses(404) },
      },
    },
    async (request) => rules.update(request.params.code, request.body, actorOf(request)),
  )
  app.delete(
    `${rulePath}/:code`,
    {
      config: INVOICES_MANAGE,
      schema: {
        tags: ruleTags,
        summary: 'Delete a rule (invoices naming it keep its code)',
        params: CodeParams,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await rules.delete(request.params.code)
      return reply.status(204).send(null)
    },
  )

  const sequenceTags = ['InvoiceSequences']
  app.get(
    '/api/v1/invoiceSequences',
    {
      config: INVOICES_VIEW,
      schema: {
        tags: sequenceTags,
        summary: 'List the invoice sequences: the tenant defaults and every seller’s own',
        response: { 200: sequenceList },
      },
    },
    async () => sequences.list(),
  )
  app.get(
    '/api/v1/invoiceSequences/:seller/:invoiceType',
    {
      config: INVOICES_VIEW,
      schema: {
        tags: sequenceTags,
        summary:
          'The sequence numbering a seller’s invoices of a type (its own, inherited, or the default: `_default`)',
        params: sequenceParams,
        response: { 200: sequenceView, ...errorResponses(404) },
      },
    },
    async (request) => sequences.get(request.params.seller, request.params.invoiceType),
  )
  app.put(
    '/api/v1/invoiceSequences/:seller/:invoiceType',
    {
      config: INVOICES_MANAGE,
      schema: {
        tags: sequenceTags,
        summary: 'Set a seller’s own sequence (or the default’s): pattern, resetEach, currentValue (never lowered)',
        params: sequenceParams,
        body: sequenceBody,
        response: { 200: sequenceView, ...errorResponses(404) },
      },
    },
    async (request) => sequences.put(request.params.seller, request.params.invoiceType, request.body, actorOf(request)),
  )

  app.get(
    '/api/v1/accountOperations',
    {
      config: role('finance.accountReceivables.view'),
      schema: {
        tags: ['AccountOperations'],
        summary: 'List accounting operations (receivables of validated invoices and credit notes), newest first',
        querystring: accountOperationQuery,
        response: { 200: accountOperationList },
      },
    },
    async (request) => invoices.accountOperations(request.query, caller(request)),
  )
}
