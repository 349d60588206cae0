import { BarChart } from '@mantine/charts'
import { day } from '../format.ts'

/** Operations per day as bars (recharts, in a chunk of its own: the figures above it do not wait for it). */
export function TrendChart({ perDay }: { perDay: { day: string; count: number }[] }) {
  return (
    <BarChart
      h={180}
      data={perDay.map((d) => ({ day: day(d.day).replace(/ \d{4}$/, ''), Operations: d.count }))}
      dataKey="day"
      series={[{ name: 'Operations', color: 'blue.6' }]}
      tickLine="none"
      gridAxis="y"
      xAxisProps={{ interval: 'preserveStartEnd', minTickGap: 24 }}
      aria-label="Operations rated per day over the last 30 days"
    />
  )
}
