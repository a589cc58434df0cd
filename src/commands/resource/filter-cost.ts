// What -R (--rate-limit) says after a filtered list or a status: the requests it spent.

/** Requests spent by a filter, per collection walked, for -R. */
export class FilterCost {
  readonly walks: [string, number][] = [];

  /** A counter for one walk, called on every response (a page the walk then drops counts too). */
  count(what: string): () => void {
    const entry: [string, number] = [what, 0];
    this.walks.push(entry);
    return () => {
      entry[1]++;
    };
  }

  total(): number {
    return this.walks.reduce((sum, [, n]) => sum + n, 0);
  }

  line(flag: string, id: string): string {
    return this.summary(`Filter --${flag} ${id}`);
  }

  /** `label: N requests (what: n, …)`. */
  summary(label: string): string {
    const total = this.total();
    const parts = this.walks.map(([what, n]) => `${what}: ${n}`);
    return `${label}: ${total} ${total === 1 ? 'request' : 'requests'} (${parts.join(', ')})`;
  }
}
