// Fixed inputs only (no Math.random, no clock): every seeded database holds the same rows.
const SEED = 20240101;
const CUSTOMER_COUNT = 2000;
const ORDER_COUNT = 6000;
const DAY_MS = 86_400_000;
const CUSTOMERS_FROM = Date.UTC(2021, 0, 1);
const CUSTOMERS_TO = Date.UTC(2025, 6, 1);
const ORDERS_FROM_DAY = Date.UTC(2024, 0, 1) / DAY_MS;
/** The data set's "today": order statuses are relative to it. */
const ORDERS_TO_DAY = Date.UTC(2025, 11, 31) / DAY_MS;
/** Orders placed before this day and since shipped or cancelled are archived. */
const ARCHIVED_BEFORE = "2024-07-01";

/** The first customers, so that examples and tests can name them. */
const PIONEERS: readonly [first: string, last: string][] = [
  ["Ada", "Lovelace"],
  ["Grace", "Hopper"],
  ["Alan", "Turing"],
  ["Katherine", "Johnson"],
  ["Edsger", "Dijkstra"],
  ["Barbara", "Liskov"],
  ["Adam", "Osborne"],
  ["Margaret", "Hamilton"],
  ["Ada", "Yonath"],
  ["Donald", "Knuth"],
];

// Neither list contains "ada", so searching for it finds only the pioneers above.
// prettier-ignore
const FIRST_NAMES = [
  "Alice", "Amir", "Beatriz", "Bruno", "Carlos", "Chloé", "Daniel", "Dmitri", "Elena", "Emma",
  "Farid", "Felix", "Greta", "Hana", "Hugo", "Ingrid", "Ivan", "Jonas", "José", "Julia",
  "Kenji", "Kofi", "Laura", "Lena", "Marco", "Mateo", "Nina", "Noor", "Omar", "Oskar",
  "Paula", "Priya", "Quentin", "Ravi", "Rosa", "Samuel", "Sofia", "Theo", "Tomás", "Uma",
  "Vera", "Victor", "Wen", "Willem", "Ximena", "Yusuf", "Zoë",
];
// prettier-ignore
const LAST_NAMES = [
  "Andersen", "Bauer", "Brown", "Castro", "Costa", "Diaz", "Dubois", "Eriksson", "Evans", "Fischer",
  "Fontaine", "García", "Gupta", "Haas", "Horvat", "Ibrahim", "Ito", "Jensen", "Keller", "Kowalski",
  "Larsen", "Lopez", "Moreau", "Müller", "Nakamura", "Novak", "Okafor", "Olsen", "Patel", "Petrov",
  "Quinn", "Romano", "Rossi", "Schmidt", "Silva", "Tanaka", "Tran", "Urban", "Varga", "Vogel",
  "Walsh", "Weber", "Xu", "Yilmaz", "Young", "Zhang",
];
const EMAIL_DOMAINS = ["example.com", "example.net", "example.org"];

/** Each tag is given to a customer independently, with this probability. */
const TAG_ODDS: readonly [tag: string, probability: number][] = [
  ["beta", 0.08],
  ["churn-risk", 0.06],
  ["newsletter", 0.4],
  ["vip", 0.05],
  ["wholesale", 0.1],
];
const PLANS: readonly [plan: string, weight: number][] = [
  ["free", 6],
  ["pro", 3],
  ["enterprise", 1],
];
const REGIONS = ["apac", "eu", "latam", "na"];
const INDUSTRIES = ["education", "finance", "health", "retail", "software"];

interface SeedCustomer {
  id: number;
  name: string;
  email: string;
  balance: number;
  created_at: string;
  /** The day created_at falls on, counted from 1970-01-01. */
  joined_day: number;
}

interface SeedOrder {
  customer_id: number;
  total: number;
  status: string;
  placed_on: string;
  flagged: number;
  archived: number;
}

/** The example's rows, table by table, each row its columns in the tables' column order. */
export interface SeedRows {
  /** id, name, email, balance, created_at */
  customers: [number, string, string, number, string][];
  /** customer_id, tag */
  customer_tags: [number, string][];
  /** customer_id, key, value */
  customer_attributes: [number, string, string][];
  /** customer_id, total, status, placed_on, flagged, archived (ids follow this order from 1) */
  orders: [number, number, string, string, number, number][];
}

/** Every row of the example database: the same on every call, for SQLite and PostgreSQL alike. */
export function seedRows(): SeedRows {
  const random = new Random(SEED);
  const customers = makeCustomers(random);
  const rows: SeedRows = { customers: [], customer_tags: [], customer_attributes: [], orders: [] };
  addCustomers(rows, customers, random);
  for (const order of makeOrders(random, customers))
    rows.orders.push([
      order.customer_id,
      order.total,
      order.status,
      order.placed_on,
      order.flagged,
      order.archived,
    ]);
  return rows;
}

function makeCustomers(random: Random): SeedCustomer[] {
  const createdMs = Array.from(
    { length: CUSTOMER_COUNT },
    () => random.int(CUSTOMERS_FROM / 1000, CUSTOMERS_TO / 1000) * 1000,
  );
  // Sorted, so that ids follow the order in which customers signed up.
  return createdMs.sort((a, b) => a - b).map((ms, index) => makeCustomer(random, index + 1, ms));
}

function makeCustomer(random: Random, id: number, createdMs: number): SeedCustomer {
  const pioneer = PIONEERS[id - 1];
  const [first, last] = pioneer ?? [random.pick(FIRST_NAMES), random.pick(LAST_NAMES)];
  // Generated names repeat, so their emails carry the id to stay unique.
  const email = pioneer
    ? `${emailPart(first)}.${emailPart(last)}@example.com`
    : `${emailPart(first)}.${emailPart(last)}${id}@${random.pick(EMAIL_DOMAINS)}`;
  return {
    id,
    name: `${first} ${last}`,
    email,
    balance: random.chance(0.1) ? 0 : cents(random.next() * 5000),
    created_at: new Date(createdMs).toISOString(),
    joined_day: Math.floor(createdMs / DAY_MS),
  };
}

/** Customers with their tags and attributes; the draws come in the order they always did. */
function addCustomers(rows: SeedRows, customers: SeedCustomer[], random: Random): void {
  for (const customer of customers) {
    const { id } = customer;
    rows.customers.push([id, customer.name, customer.email, customer.balance, customer.created_at]);
    for (const [tag, probability] of TAG_ODDS)
      if (random.chance(probability)) rows.customer_tags.push([id, tag]);
    rows.customer_attributes.push([id, "plan", random.weighted(PLANS)]);
    rows.customer_attributes.push([id, "region", random.pick(REGIONS)]);
    if (random.chance(0.5))
      rows.customer_attributes.push([id, "industry", random.pick(INDUSTRIES)]);
  }
}

function makeOrders(random: Random, customers: SeedCustomer[]): SeedOrder[] {
  const orders = Array.from({ length: ORDER_COUNT }, () => makeOrder(random, customers));
  // Ids then follow the order in which orders were placed, as they would in a live shop.
  return orders.sort((a, b) =>
    a.placed_on < b.placed_on ? -1 : a.placed_on > b.placed_on ? 1 : 0,
  );
}

function makeOrder(random: Random, customers: SeedCustomer[]): SeedOrder {
  // The smaller of two draws favours older customers: they have had longer to order.
  const customer =
    customers[Math.min(random.int(0, customers.length - 1), random.int(0, customers.length - 1))]!;
  const day = random.int(Math.max(ORDERS_FROM_DAY, customer.joined_day), ORDERS_TO_DAY);
  const total = orderTotal(random);
  const status = orderStatus(random, ORDERS_TO_DAY - day);
  const placed_on = new Date(day * DAY_MS).toISOString().slice(0, 10);
  return {
    customer_id: customer.id,
    total,
    status,
    placed_on,
    flagged: random.chance(total >= 3000 ? 0.25 : 0.01) ? 1 : 0,
    archived:
      placed_on < ARCHIVED_BEFORE && (status === "shipped" || status === "cancelled") ? 1 : 0,
  };
}

/** Mostly small baskets, some large ones, and a few above 10,000. */
function orderTotal(random: Random): number {
  const size = random.next();
  if (size < 0.85) return cents(5 + random.next() * 295);
  if (size < 0.98) return cents(300 + random.next() * 2700);
  return cents(3000 + random.next() * 22000);
}

function orderStatus(random: Random, daysOld: number): string {
  if (random.chance(0.05)) return "cancelled";
  if (daysOld < 7) return random.pick(["pending", "paid"]);
  if (daysOld < 30) return random.pick(["paid", "shipped"]);
  return "shipped";
}

function emailPart(name: string): string {
  return name
    .normalize("NFD")
    .toLowerCase()
    .replace(/[^a-z]/g, "");
}

function cents(amount: number): number {
  return Math.round(amount * 100) / 100;
}

/** mulberry32: a tiny PRNG whose sequence depends only on its seed. */
class Random {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)]!;
  }

  weighted<T>(choices: readonly [T, number][]): T {
    let roll = this.next() * choices.reduce((sum, [, weight]) => sum + weight, 0);
    for (const [choice, weight] of choices) {
      roll -= weight;
      if (roll < 0) return choice;
    }
    return choices[choices.length - 1]![0];
  }
}
