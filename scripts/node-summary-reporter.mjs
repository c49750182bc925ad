// A node --test reporter for scripts/check: one dot per passing test, every failure in
// full, then node's own closing counts in the spec reporter's form ("ℹ pass 46"), then
// the five slowest tests (as pytest's --durations=5 lists its own).
import { inspect } from 'node:util';
import { relative } from 'node:path';

const SLOWEST = 5;

export default async function* summaryReporter(source) {
  let column = 0;
  const failures = [];
  const times = [];
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') &&
        event.data.details?.type !== 'suite' && event.data.details?.duration_ms !== undefined) {
      const { name, file, details } = event.data;
      times.push([details.duration_ms, file ? `${relative(process.cwd(), file)}: ${name}` : name]);
    }
    if (event.type === 'test:pass' && event.data.details?.type !== 'suite') {
      yield '.';
      column += 1;
      if (column === 72) { yield '\n'; column = 0; }
    } else if (event.type === 'test:fail') {
      yield 'F';
      column += 1;
      const { name, file, line, details } = event.data;
      const error = details?.error?.cause ?? details?.error;
      failures.push(`not ok: ${name} (${file ?? '?'}:${line ?? '?'})\n` +
        `${inspect(error, { depth: 4 })}\n`);
    } else if (event.type === 'test:diagnostic' && event.data.nesting === 0) {
      if (column) { yield '\n'; column = 0; }
      while (failures.length) yield failures.shift();
      yield `ℹ ${event.data.message}\n`;
    } else if (event.type === 'test:stderr' || event.type === 'test:stdout') {
      if (event.data.message.trim()) yield event.data.message;
    }
  }
  if (column) yield '\n';
  times.sort((a, b) => b[0] - a[0]);
  if (times.length) yield `slowest ${Math.min(SLOWEST, times.length)} node tests:\n`;
  for (const [ms, what] of times.slice(0, SLOWEST)) {
    yield `${(ms / 1000).toFixed(2).padStart(8)}s  ${what}\n`;
  }
}
