/** PostgreSQL LSNs (`16/B374D848`) as numbers that compare and subtract. */
export function parseLsn(text: string | null | undefined): bigint {
  if (text === null || text === undefined) return 0n;
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}
