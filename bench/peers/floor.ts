/**
 * The least any parser must do: look at every character of the URI once. Summing the code units
 * keeps the loop from being optimised away; nothing is allocated.
 */
export function readEveryCharacter(uri: string): number {
  let sum = 0;
  for (let i = 0; i < uri.length; i++) sum = (sum + uri.charCodeAt(i)) | 0;
  return sum;
}
