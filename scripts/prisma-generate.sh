#!/usr/bin/env bash
# Writes Prisma's generated clients of the notes example: examples/prisma/client/ (SQLite) from
# examples/prisma/schema.prisma, and examples/prisma/postgres/client/ from examples/prisma/postgres/schema.prisma.
# `prisma generate` itself needs no engine binary, but Prisma's CLI insists on downloading its
# schema engine first, which the npm registry does not carry: PRISMA_SCHEMA_ENGINE_BINARY names
# a file for it to find instead (generate never runs it). `prisma migrate` does need the engine,
# so the example makes its tables itself (examples/prisma/db.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
for schema in examples/prisma/schema.prisma examples/prisma/postgres/schema.prisma; do
  PRISMA_SCHEMA_ENGINE_BINARY="$(type -P false)" npx --no-install prisma generate --schema "$schema"
done
