// The fenced `sh` blocks of a Markdown file, with their markers (see test/e2e/readme.test.ts).

export interface Snippet {
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  notRun?: string;
  needs: string[];
}

export function snippets(markdown: string): Snippet[] {
  const lines = markdown.split('\n');
  const out: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== '```sh') continue;
    const indent = /^\s*/.exec(lines[i] ?? '')?.[0] ?? '';
    const marker = (lines[i - 1] ?? '').trim();
    const end = lines.findIndex((l, j) => j > i && l.trim() === '```');
    if (end === -1) throw new Error(`line ${i + 1}: a fenced block that is never closed`);
    out.push({
      line: i + 1,
      code: lines
        .slice(i + 1, end)
        .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l))
        .join('\n'),
      notRun: /^<!-- snippet: not run, (.+) -->$/.exec(marker)?.[1],
      needs: /^<!-- snippet needs: (.+) -->$/.exec(marker)?.[1]?.split(/\s+/) ?? [],
    });
    i = end;
  }
  return out;
}
