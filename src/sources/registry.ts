// Every source the exporter polls, in the order their series and poll metrics
// are rendered, and the config file they make: config/'s common settings with
// each source's section, in this order. Adding a source: its module (source.ts),
// a line here, its metrics in src/metrics/catalog.ts, and its tests
// (CONTRIBUTING.md, Adding a source).
import { configFile } from '../config/load.js';
import { admin } from './admin.js';
import { chainInfo } from './chain-info.js';
import { evm } from './evm.js';
import { health } from './health.js';
import { indexApi } from './index-api.js';
import { info } from './info.js';
import { nodeMetrics } from './node-metrics.js';
import { platform } from './platform.js';
import { proposervm } from './proposervm.js';
import { checkSources } from './source.js';

export const SOURCES = checkSources([health, indexApi, info, platform, evm, proposervm, admin, nodeMetrics, chainInfo] as const);

/** The exporter's config file: its schema, its built-in defaults, and the ways to read it (config/load.ts). */
export const CONFIG_FILE = configFile(SOURCES.map((s) => s.config));
export const configSchema = CONFIG_FILE.schema;
export const loadConfigFile = CONFIG_FILE.load;
export const parseConfigText = CONFIG_FILE.parse;
export const configFromValue = CONFIG_FILE.fromValue;
export const defaultConfig = CONFIG_FILE.byDefault;
