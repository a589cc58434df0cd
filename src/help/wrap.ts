// Help text in lines that fit the terminal: commander's own wrapping covers the option and
// command lists; these cover what hostctl adds (examples, topics) and narrow terminals.

/** `text` in lines of at most `width` columns, broken at spaces (a longer word stays whole). */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/ +/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '' || lines.length === 0) lines.push(line);
  return lines;
}

/**
 * A shell command in lines of at most `width` columns that still run as shown: broken
 * between words outside quotes, each broken line ending in " \\" (the shell's line
 * continuation).
 */
export function wrapCommand(command: string, width: number): string[] {
  // A comment stays whole on the last line: a continuation inside it would end the comment.
  const hash = command.search(/(?:^|\s)#/);
  const code = hash === -1 ? command : command.slice(0, hash);
  const words: string[] = code.match(/(?:'[^']*'|"(?:[^"\\]|\\.)*"|[^\s'"])+/g) ?? [];
  if (hash !== -1) words.push(command.slice(hash).trim());
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line !== '' && line.length + 1 + word.length + 2 > width) {
      lines.push(`${line} \\`);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines;
}

/**
 * A help topic's text fitted to `width`. A block that fits is left as written. One that
 * does not (a paragraph, or an item whose description continues under its description
 * column) is joined and broken again at spaces, its later lines indented as that column;
 * a command line ("  $ …") is broken as wrapCommand does.
 */
export function wrapText(text: string, width: number): string {
  const lines = text.split('\n');
  const out: string[] = [];
  const isCommand = (line: string) => /^\s*\$ /.test(line);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const command = /^(\s*\$ )(.*)$/.exec(line);
    if (command) {
      const lead = command[1] ?? '';
      if (line.length <= width) out.push(line);
      else out.push(...wrapCommand(command[2] ?? '', width - lead.length - 2).map((part, n) => `${n === 0 ? lead : ' '.repeat(lead.length + 2)}${part}`));
      continue;
    }
    if (line.trim() === '') {
      out.push(line);
      continue;
    }
    const lead = /^\s*/.exec(line)?.[0].length ?? 0;
    const column = /^(\s*\S.*?\s{2,})\S/.exec(line)?.[1]?.length ?? lead;
    const block = [line];
    const continues = new RegExp(`^ {${column}}\\S`);
    while (i + 1 < lines.length && !isCommand(lines[i + 1] ?? '') && continues.test(lines[i + 1] ?? '')) block.push(lines[++i] ?? '');
    if (block.every((l) => l.length <= width)) {
      out.push(...block);
      continue;
    }
    const hang = width - column >= 20 ? column : lead;
    const words = [line.slice(hang), ...block.slice(1)].map((l) => l.trim()).join(' ');
    const head = line.slice(0, hang);
    out.push(...wrapWords(words, width - hang).map((part, n) => `${n === 0 ? head : ' '.repeat(hang)}${part}`));
  }
  return out.join('\n');
}
