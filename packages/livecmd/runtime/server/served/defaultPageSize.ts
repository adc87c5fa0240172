/** Entries per page of tools/list, resources/list and resources/templates/list unless configured. */
export const DEFAULT_PAGE_SIZE = 100;
