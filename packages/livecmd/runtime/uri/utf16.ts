/** Whether `s[i]` and `s[i + 1]` form one astral character rather than unpaired surrogates. */
export function isSurrogatePairAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  const next = s.charCodeAt(i + 1);
  return c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
}
