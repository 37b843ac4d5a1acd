// Validates Kubernetes objects against the Kubernetes API schemas of pinned npm packages (issue 32).
//
//   node tests/deploy/k8s/validate.mjs < objects.json
//
// Input: a JSON array of {"file": "...", "doc": {...object...}} (check_deploy.py converts the YAML).
// For each object:
//   1. schema: the kubernetes-models class for its apiVersion/kind validates it (the OpenAPI
//      schema compiled with ajv: types, enums, required fields, formats); an unknown
//      apiVersion/kind fails;
//   2. field names (what `kubectl --validate=strict` adds): every key, at every depth, must be a
//      field of its type in @kubernetes/client-node's models; a misspelt or misplaced key fails.
// Prints one "ok"/"FAIL" line per object; exit 0 when all pass, 1 otherwise, 2 on bad input.
import { readFileSync } from "node:fs";

const modelCache = new Map();

async function clientModel(type) {
  if (!modelCache.has(type)) {
    let model = null;
    try {
      model = (await import(`@kubernetes/client-node/dist/gen/models/${type}.js`))[type] ?? null;
    } catch {
      model = null;
    }
    modelCache.set(type, model);
  }
  return modelCache.get(type);
}

// Keys in `value` that are not fields of `type`, as paths (recursing into known fields).
async function unknownFields(value, type, path) {
  const array = /^Array<(.+)>$/.exec(type);
  if (array) {
    if (!Array.isArray(value)) return [];
    const found = await Promise.all(value.map((v, i) => unknownFields(v, array[1], `${path}[${i}]`)));
    return found.flat();
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    if (value === null || typeof value !== "object") return [];
    const found = await Promise.all(Object.entries(value).map(([k, v]) => unknownFields(v, map[1], `${path}.${k}`)));
    return found.flat();
  }
  const model = await clientModel(type);
  if (!model || value === null || typeof value !== "object" || Array.isArray(value)) return [];
  const fields = new Map(model.getAttributeTypeMap().map((a) => [a.baseName, a.type]));
  const found = [];
  for (const [key, child] of Object.entries(value)) {
    if (!fields.has(key)) found.push(`${path}.${key}`);
    else found.push(...(await unknownFields(child, fields.get(key), `${path}.${key}`)));
  }
  return found;
}

async function check({ file, doc }) {
  const { apiVersion, kind } = doc ?? {};
  const where = `${file}: ${kind}/${doc?.metadata?.name}`;
  let Model;
  try {
    Model = (await import(`kubernetes-models/${apiVersion}/${kind}`))[kind];
  } catch {
    Model = undefined;
  }
  if (!Model) return `FAIL  ${where}: ${apiVersion} ${kind} is not a Kubernetes API type`;
  try {
    new Model(doc).validate();
  } catch (e) {
    return `FAIL  ${where}: schema ${apiVersion} ${kind}: ${e.message}`;
  }
  const version = apiVersion.split("/").pop();
  const type = version.charAt(0).toUpperCase() + version.slice(1) + kind;
  if (!(await clientModel(type))) return `FAIL  ${where}: no field list for ${type} in @kubernetes/client-node`;
  const unknown = await unknownFields(doc, type, kind);
  if (unknown.length) return `FAIL  ${where}: unknown field(s) ${unknown.join(", ")}`;
  return `ok    ${where}: valid ${apiVersion} ${kind} (schema and field names)`;
}

let items;
try {
  items = JSON.parse(readFileSync(0, "utf8"));
} catch (e) {
  console.log(`FAIL  validate.mjs: input is not JSON: ${e.message}`);
  process.exit(2);
}
const lines = [];
for (const item of items) lines.push(await check(item));
console.log(lines.join("\n"));
process.exit(lines.some((l) => l.startsWith("FAIL")) ? 1 : 0);
