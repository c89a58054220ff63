export async function runDemo(_argv: string[]): Promise<number> { throw new Error('demo not built yet'); }
