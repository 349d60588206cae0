import { useEffect, useRef } from 'react'
import { basicSetup, EditorView } from 'codemirror'
import { keymap } from '@codemirror/view'
import { Compartment, Prec } from '@codemirror/state'
import { sql, type SQLNamespace } from '@codemirror/lang-sql'
import { closeCompletion, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete'
import { ApiError } from './api.ts'
import { api, ok, type Got } from './client.ts'

type EntityDescription = Got<'/api/v1/workbench/schema/entities/{entity}'>
const describeEntity = (entity: string): Promise<EntityDescription> =>
  ok(api.GET('/api/v1/workbench/schema/entities/{entity}', { params: { path: { entity } } }))
const schemaEntities = async (): Promise<string[]> => (await ok(api.GET('/api/v1/workbench/schema/entities'))).entities

/** The schema endpoints, asked once per entity for the life of the page. */
const described = new Map<string, Promise<EntityDescription>>()
let entityNames: Promise<string[]> | undefined
const describe = (entity: string) => {
  if (!described.has(entity)) described.set(entity, describeEntity(entity))
  return described.get(entity)!
}

/** Aliases declared in the text: `from Customer c`, `join c.seller s` (a path resolved from its alias). */
function aliases(text: string): Map<string, string[]> {
  const found = new Map<string, string[]>()
  const declared = /\b(from|join)\s+([A-Za-z_][\w.]*)\s+(?:as\s+)?([A-Za-z_]\w*)/gi
  for (const match of text.matchAll(declared)) {
    const [, , target, alias] = match
    if (!target || !alias || /^(where|join|left|inner|group|order|on)$/i.test(alias)) continue
    const [head, ...rest] = target.split('.')
    const base = found.get(head!)
    found.set(alias, base ? [...base, ...rest] : [target])
  }
  return found
}

/** The entity a path (`Customer`, or `Customer.seller`) leads to, following relations. */
async function entityAt(path: string[]): Promise<EntityDescription | undefined> {
  const [first, ...rest] = path
  const names = await (entityNames ??= schemaEntities())
  let entity = names.find((n) => n.toLowerCase() === first?.toLowerCase())
  if (!entity) return undefined
  let description = await describe(entity)
  for (const step of rest) {
    const field = description.fields.find((f) => f.name === step)
    if (!field?.relation) return undefined
    entity = field.relation.target
    description = await describe(entity)
  }
  return description
}

/** Completion from the schema: entity names, and after a dot the fields and relations of what is before it. */
async function complete(context: CompletionContext): Promise<CompletionResult | null> {
  const path = context.matchBefore(/[A-Za-z_][\w]*(\.[A-Za-z_]?\w*)+/)
  if (path) {
    const parts = path.text.split('.')
    const typed = parts.pop()!
    const declared = aliases(context.state.doc.toString())
    const [head, ...rest] = parts
    const entity = await entityAt([...(declared.get(head!) ?? [head!]), ...rest])
    if (!entity) return null
    return {
      from: path.to - typed.length,
      options: entity.fields.map((f) => ({
        label: f.name,
        type: f.relation ? 'class' : 'property',
        detail: f.relation ? `→ ${f.relation.target}` : f.type,
      })),
      validFor: /^\w*$/,
    }
  }
  const word = context.matchBefore(/\w*/)
  if (!word || (word.from === word.to && !context.explicit)) return null
  const names = await (entityNames ??= schemaEntities())
  return { from: word.from, options: names.map((n) => ({ label: n, type: 'type' })), validFor: /^\w*$/ }
}

/** Where a refused query went wrong (the API's line and column), for the editor to put the cursor there. */
export function errorMark(error: unknown): { line: number; column: number } | undefined {
  return error instanceof ApiError && error.body.line !== undefined
    ? { line: error.body.line, column: error.body.column ?? 1 }
    : undefined
}

/**
 * CodeMirror 6 with SQL highlighting, completion (HQL: from the workbench schema; native SQL: from the tables given),
 * and Ctrl+Enter (Cmd+Enter) to run.
 */
export function HqlEditor({
  value,
  onChange,
  onRun,
  label,
  mark,
  schemaCompletion = true,
  sqlSchema,
  closeSignal,
}: {
  value: string
  onChange: (text: string) => void
  onRun: () => void
  label: string
  /** A position to put the cursor at (an error's line and column, from 1). */
  mark?: { line: number; column: number }
  /** Completion from the workbench schema (HQL entities and fields); off for native SQL, whose names are tables. */
  schemaCompletion?: boolean
  /** Native SQL: the tables and their columns to complete (table names, then columns after `table.` or an alias). */
  sqlSchema?: SQLNamespace
  /** Changed (a counter) when the screen wants an open completion list closed: after Save, for instance. */
  closeSignal?: number
}) {
  const host = useRef<HTMLDivElement>(null)
  const view = useRef<EditorView>(undefined)
  // The SQL language is reconfigured when the tables arrive (they are fetched after the editor is made).
  const language = useRef(new Compartment())
  const latest = useRef({ onChange, onRun })
  latest.current = { onChange, onRun }

  useEffect(() => {
    const editor = new EditorView({
      doc: value,
      parent: host.current!,
      extensions: [
        // Running closes an open completion list: it would otherwise stay over the editor.
        Prec.highest(
          keymap.of([
            {
              key: 'Mod-Enter',
              run: (editor) => {
                closeCompletion(editor)
                latest.current.onRun()
                return true
              },
            },
          ]),
        ),
        basicSetup,
        language.current.of(sql()),
        schemaCompletion ? sql().language.data.of({ autocomplete: complete }) : [],
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ 'aria-label': label }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) latest.current.onChange(update.state.doc.toString())
        }),
      ],
    })
    view.current = editor
    return () => editor.destroy()
    // The editor is created once; `value` is pushed in below when it changes from outside.
  }, [])

  useEffect(() => {
    const editor = view.current
    if (editor && sqlSchema) editor.dispatch({ effects: language.current.reconfigure(sql({ schema: sqlSchema })) })
  }, [sqlSchema])

  useEffect(() => {
    const editor = view.current
    if (editor && editor.state.doc.toString() !== value)
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } })
  }, [value])

  useEffect(() => {
    if (view.current && closeSignal !== undefined) closeCompletion(view.current)
  }, [closeSignal])

  useEffect(() => {
    const editor = view.current
    if (!editor || !mark) return
    const doc = editor.state.doc
    const line = doc.line(Math.min(Math.max(1, mark.line), doc.lines))
    const at = Math.min(line.from + Math.max(0, mark.column - 1), line.to)
    editor.dispatch({ selection: { anchor: at }, scrollIntoView: true })
    editor.focus()
  }, [mark])

  return <div className="editor" ref={host} />
}
