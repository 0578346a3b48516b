#!/usr/bin/env bash
# Creates the skeleton of a workspace project: project.json with tags and the standard targets,
# tsconfig.json, jest.config.js and src/index.ts. Usage: new-project.sh <dir> <name> "<tag,tag,...>"
set -euo pipefail
dir=$1 name=$2 tags=$3
mkdir -p "$dir/src"
depth=$(awk -F/ '{print NF}' <<<"$dir")
up=$(printf '../%.0s' $(seq 1 "$depth"))
tag_json=$(awk -v RS=, '{printf "%s\"%s\"", (NR>1?", ":""), $0}' <<<"$tags" | tr -d '\n')
cat >"$dir/project.json" <<JSON
{
  "name": "$name",
  "\$schema": "${up}node_modules/nx/schemas/project-schema.json",
  "sourceRoot": "$dir/src",
  "projectType": "library",
  "tags": [$tag_json],
  "targets": {
    "lint": {},
    "typecheck": {},
    "test": {}
  }
}
JSON
cat >"$dir/tsconfig.json" <<JSON
{
  "extends": "${up}tsconfig.base.json",
  "compilerOptions": { "noEmit": true },
  "include": ["src/**/*.ts"]
}
JSON
cat >"$dir/jest.config.js" <<JS
module.exports = {
  ...require('${up}jest.preset.js'),
  displayName: '$name',
  rootDir: __dirname,
};
JS
[ -f "$dir/src/index.ts" ] || echo "export {};" >"$dir/src/index.ts"
