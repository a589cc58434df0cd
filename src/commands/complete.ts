export async function completeMain(_words: string[]): Promise<number> { return 0; }
