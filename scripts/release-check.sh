#!/usr/bin/env bash
# What a release of the two packages would publish, checked without publishing (CI runs it after
# the build): each package lints as published (publint --strict), its types resolve for ESM
# consumers (attw), `npm publish --dry-run` corrects nothing in its package.json (npm 11 drops a
# bin it would "correct"), and it has no install script (npm 11 asks users to approve those).
set -euo pipefail
cd "$(dirname "$0")/.."
for package in packages/livecmd packages/livecmd-kit; do
  echo "release-check.sh: $package"
  (cd "$package" && npx --no-install publint --strict)
  (cd "$package" && npx --no-install attw --pack . --profile esm-only --format table-flipped >/dev/null) ||
    {
      (cd "$package" && npx --no-install attw --pack . --profile esm-only) >&2
      exit 1
    }
  published=$(cd "$package" && npm publish --dry-run --ignore-scripts 2>&1)
  if grep -q "auto-corrected" <<<"$published"; then
    echo "release-check.sh: npm would correct $package/package.json on publish:" >&2
    grep -A5 "auto-corrected" <<<"$published" >&2
    exit 1
  fi
  scripts=$(node -p 'Object.keys(require("./'"$package"'/package.json").scripts ?? {}).filter((name) => /^(pre|post)?install$|^prepare$/.test(name)).join(" ")')
  if [ -n "$scripts" ]; then
    echo "release-check.sh: $package has install scripts ($scripts): the published package must need none" >&2
    exit 1
  fi
done
echo "release-check.sh: both packages publish as they are"
