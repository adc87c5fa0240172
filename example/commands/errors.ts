/** A failure, not a refusal of the arguments: the id is well formed, no customer has it. */
export function noCustomer(id: number): Error {
  return new Error(`no customer with id ${id}`);
}
