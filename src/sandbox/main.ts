export async function sandboxMain(_argv: string[]): Promise<number> { process.stderr.write('hostctl sandbox: not implemented yet\n'); return 1; }
