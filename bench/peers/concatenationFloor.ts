import type { FixtureVariables } from "../lib/uriFixtures.ts";

type Values = Record<string, string | number | undefined>;

/**
 * The least any expander must do: join the fixed parts and the values, with no escaping, no
 * conversion and no checks. Its URIs are not valid (nothing is escaped), so it is a floor to
 * measure against, not a contender. Written by hand per template, as tightly as it goes.
 */
export const concatenationFloor: { [T in keyof FixtureVariables]: (vars: object) => string } = {
  customers_show: (vars) => "app://customers_show/" + (vars as Values).id,
  customers_index: (vars) => {
    const v = vars as Values;
    let query = "";
    if (v.direction !== undefined) query += "&direction=" + v.direction;
    if (v.page !== undefined) query += "&page=" + v.page;
    if (v.per_page !== undefined) query += "&per_page=" + v.per_page;
    if (v.search !== undefined) query += "&search=" + v.search;
    if (v.sort !== undefined) query += "&sort=" + v.sort;
    return query === "" ? "app://customers_index" : "app://customers_index?" + query.slice(1);
  },
  orders_between: (vars) => {
    const v = vars as Values;
    const path = "app://orders_between/" + v.from + "/" + v.to;
    return v.status === undefined ? path : path + "?status=" + v.status;
  },
};
