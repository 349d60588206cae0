import { describe, expect, it } from 'vitest'
import {
  validateMatrix,
  type MatrixAttribute,
  type MatrixColumnInput,
  type MatrixRowInput,
} from './matrix-definition.ts'

const attributes = new Map<string, MatrixAttribute>(
  [
    { code: 'TIER', attributeType: 'LIST_TEXT', allowedValues: ['GOLD', 'SILVER'], disabled: false },
    { code: 'REGION', attributeType: 'LIST_TEXT', allowedValues: ['EU', 'US'], disabled: false },
    { code: 'NOTE', attributeType: 'TEXT', allowedValues: [], disabled: false },
    { code: 'USERS', attributeType: 'INTEGER', allowedValues: [], disabled: false },
    { code: 'START', attributeType: 'DATE', allowedValues: [], disabled: false },
    { code: 'OLD', attributeType: 'TEXT', allowedValues: [], disabled: true },
  ].map((a) => [a.code, a]),
)

const tierRegion: MatrixColumnInput[] = [
  { code: 'tier', type: 'String', position: 0, attributeCode: 'TIER' },
  { code: 'region', type: 'String', position: 1, attributeCode: 'REGION' },
]
const row = (price: number, tier: string, region?: string): MatrixRowInput => ({
  price,
  values: [
    { dimensionCode: 'tier', stringValue: tier },
    ...(region === undefined ? [] : [{ dimensionCode: 'region', stringValue: region }]),
  ],
})
const fields = (columns: MatrixColumnInput[], rows: MatrixRowInput[]) =>
  validateMatrix(columns, rows, attributes).problems.map((p) => `${p.field}: ${p.message}`)

describe(validateMatrix.name, () => {
  it('normalizes a valid matrix: columns by position, rows with 0-based priorities, empty cells as wildcards', () => {
    const { problems, matrix } = validateMatrix(
      [tierRegion[1]!, tierRegion[0]!],
      [row(30, 'GOLD', 'EU'), row(20, 'SILVER', ''), row(10, '', 'US')],
      attributes,
    )
    expect(problems).toEqual([])
    expect(matrix.columns.map((c) => c.code)).toEqual(['tier', 'region'])
    expect(matrix.rows.map((r) => [r.priority, r.price.toString()])).toEqual([
      [0, '30'],
      [1, '20'],
      [2, '10'],
    ])
    expect(matrix.rows[1]!.values).toEqual([
      { dimensionCode: 'tier', stringValue: 'SILVER' },
      { dimensionCode: 'region', stringValue: '' },
    ])
  })

  it.each([
    [
      'an unknown attribute',
      [{ code: 'x', type: 'String' as const, attributeCode: 'NOPE' }],
      [{ price: 1 }],
      "columns[0].attributeCode: no attribute with code 'NOPE'",
    ],
    [
      'a disabled attribute',
      [{ code: 'x', type: 'String' as const, attributeCode: 'OLD' }],
      [{ price: 1 }],
      'columns[0].attributeCode: attribute OLD is disabled',
    ],
    [
      'a value outside the allowed values',
      tierRegion,
      [row(1, 'BRONZE', 'EU')],
      "rows[0].values[0].stringValue: 'BRONZE' is not an allowed value of attribute TIER (GOLD, SILVER)",
    ],
    [
      'a case variant of an allowed value',
      tierRegion,
      [row(1, 'gold')],
      "rows[0].values[0].stringValue: 'gold' is not an allowed value of attribute TIER (GOLD, SILVER)",
    ],
    [
      'an unknown dimension',
      tierRegion,
      [{ price: 1, values: [{ dimensionCode: 'size', stringValue: 'L' }] }],
      "rows[0].values[0].dimensionCode: no column with code 'size'",
    ],
    [
      'duplicate rows',
      tierRegion,
      [row(1, 'GOLD', 'EU'), row(2, 'GOLD', 'EU')],
      'rows[1]: duplicates rows[0]: same values',
    ],
    [
      'duplicate wildcard rows',
      tierRegion,
      [row(1, 'GOLD'), row(2, 'GOLD', '')],
      'rows[1]: duplicates rows[0]: same values',
    ],
    [
      'duplicate column codes',
      [tierRegion[0]!, { ...tierRegion[1]!, code: 'tier' }],
      [{ price: 1 }],
      'columns[1].code: duplicate column code tier',
    ],
    [
      'duplicate positions',
      [tierRegion[0]!, { ...tierRegion[1]!, position: 0 }],
      [{ price: 1 }],
      'columns[1].position: duplicate column position 0',
    ],
    [
      'a range column on a text attribute',
      [{ code: 'x', type: 'Range_Numeric' as const, attributeCode: 'NOTE' }],
      [{ price: 1 }],
      'columns[0].type: a Range_Numeric column cannot be backed by attribute NOTE of type TEXT',
    ],
    [
      'a contradicting isRange',
      [{ ...tierRegion[0]!, isRange: true }],
      [{ price: 1 }],
      'columns[0].isRange: a String column has isRange false',
    ],
    [
      'allowed values the attribute does not have',
      [{ ...tierRegion[0]!, allowedValues: ['GOLD', 'PLATINUM'] }],
      [{ price: 1 }],
      "columns[0].allowedValues[1]: 'PLATINUM' is not an allowed value of attribute TIER",
    ],
    ['no rows', tierRegion, [], 'rows: a MATRIX needs at least one row'],
    ['no columns', [], [{ price: 1 }], 'columns: a MATRIX needs at least one column'],
    [
      'duplicate priorities',
      tierRegion,
      [
        { ...row(1, 'GOLD'), priority: 3 },
        { ...row(1, 'SILVER'), priority: 3 },
      ],
      'rows[1].priority: duplicate priority 3',
    ],
    [
      'a price with 13 decimals',
      tierRegion,
      [{ price: '0.1234567890123' }],
      'rows[0].price: expected at most 12 decimals',
    ],
  ])('refuses %s', (_case, columns, rows, problem) => {
    expect(fields(columns, rows)).toContain(problem)
  })

  const ranged: MatrixColumnInput[] = [
    { code: 'tier', type: 'String', attributeCode: 'TIER' },
    { code: 'users', type: 'Range_Numeric', attributeCode: 'USERS' },
    { code: 'start', type: 'Range_Date', attributeCode: 'START' },
  ]
  const rangeRow = (
    tier: string,
    users: [number | null, number | null],
    start: [string | null, string | null] = [null, null],
  ) => ({
    price: 1,
    values: [
      { dimensionCode: 'tier', stringValue: tier },
      { dimensionCode: 'users', fromValue: users[0], toValue: users[1] },
      { dimensionCode: 'start', fromValue: start[0], toValue: start[1] },
    ],
  })

  it('accepts ranges that touch (end-exclusive) or differ in another column', () => {
    expect(
      fields(ranged, [
        rangeRow('GOLD', [null, 10]),
        rangeRow('GOLD', [10, 100]),
        rangeRow('GOLD', [100, null]),
        rangeRow('SILVER', [0, 1000]),
        rangeRow('SILVER', [1000, null], [null, '2026-01-01']),
        rangeRow('SILVER', [1000, null], ['2026-01-01', null]),
      ]),
    ).toEqual([])
  })

  it.each([
    [
      [rangeRow('GOLD', [0, 10]), rangeRow('GOLD', [5, 20])],
      'rows[1]: overlaps rows[0]: same values and intersecting ranges of users, start',
    ],
    [[rangeRow('GOLD', [null, null]), rangeRow('GOLD', [5, 20])], 'rows[1]: overlaps rows[0]'],
    [
      [rangeRow('GOLD', [0, 10], ['2026-01-01', '2026-06-01']), rangeRow('GOLD', [9, 20], ['2026-05-31', null])],
      'rows[1]: overlaps rows[0]',
    ],
    [[rangeRow('GOLD', [10, 5])], 'rows[0].values[1].toValue: expected toValue greater than fromValue'],
    [[rangeRow('GOLD', [0, 5], ['2026-02-30', null])], 'rows[0].values[2].fromValue: expected a date yyyy-MM-dd'],
    [
      [{ price: 1, values: [{ dimensionCode: 'users', stringValue: '5' }] }],
      'rows[0].values[0].stringValue: range column users takes fromValue and toValue',
    ],
    [
      [{ price: 1, values: [{ dimensionCode: 'tier', stringValue: 'GOLD', fromValue: 1 }] }],
      'rows[0].values[0]: column tier is not a range column: use stringValue',
    ],
  ])('refuses overlapping or malformed ranges (%#)', (rows, problem) => {
    expect(fields(ranged, rows).some((p) => p.startsWith(problem))).toBe(true)
  })
})
