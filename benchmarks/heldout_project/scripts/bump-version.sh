#!/bin/sh
# Set the crate's version and open its section in the changelog.
#   scripts/bump-version.sh 0.4.2
set -eu
version="$1"
sed -i "s/^version = \".*\"/version = \"$version\"/" Cargo.toml
today="2026-12-01"
sed -i "s/^## Unreleased$/## Unreleased\n\n## $version ($today)/" CHANGELOG.md
echo "version $version"
