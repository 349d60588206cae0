import { beforeAll } from 'vitest'

interface Task {
  name: string
  type: string
  tasks?: Task[]
}

/**
 * Refuses a test file where two tests have the same full name (describe blocks and test name): a report naming a
 * failure must point at one test, and a copied test left with its original name is usually a mistake.
 */
// Vitest reads the hook's first parameter as fixtures and requires a destructuring pattern; the file's suite is the second.
// eslint-disable-next-line no-empty-pattern
beforeAll(({}, file) => {
  const seen = new Set<string>()
  const duplicates: string[] = []
  const walk = (task: Task, prefix: string) => {
    for (const child of task.tasks ?? []) {
      const name = prefix === '' ? child.name : `${prefix} > ${child.name}`
      if (child.type === 'test') {
        if (seen.has(name)) duplicates.push(name)
        seen.add(name)
      } else walk(child, name)
    }
  }
  walk(file, '')
  if (duplicates.length > 0) throw new Error(`Tests with the same name in this file: ${duplicates.join('; ')}`)
})
