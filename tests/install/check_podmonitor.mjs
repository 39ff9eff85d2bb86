// SPDX-License-Identifier: GPL-2.0
// The PodMonitor of dist/kubernetes against the Prometheus Operator's own
// schema, as npm's @kubernetes-models/prometheus-operator compiles it (its
// fields' types, enums and required fields; unknown fields are not caught).
// Usage: node check_podmonitor.mjs NODE_MODULES PODMONITOR.json
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [modules, file] = process.argv.slice(2);
if (!modules || !file) {
	console.error("usage: node check_podmonitor.mjs NODE_MODULES PODMONITOR.json");
	process.exit(2);
}
// the package's file itself: its exports map is for bare imports only
const { PodMonitor } = await import(pathToFileURL(
	`${modules}/@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor.js`));
const obj = JSON.parse(readFileSync(file, "utf8"));
try {
	new PodMonitor(obj).validate();
} catch (e) {
	console.log(`${file}: PodMonitor/${obj.metadata?.name}: ${e.message}`);
	process.exit(1);
}
console.log(`${file}: PodMonitor/${obj.metadata?.name}: valid (prometheus-operator schema)`);
