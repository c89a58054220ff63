// Every source the exporter polls, in the order their series and poll metrics
// are rendered. Adding a source: one module implementing Source (source.ts),
// one line here.
import { admin } from './admin.js';
import { evm } from './evm.js';
import { health } from './health.js';
import { indexApi } from './index-api.js';
import { info } from './info.js';
import { platform } from './platform.js';
import { proposervm } from './proposervm.js';
import type { Source } from './source.js';

export const SOURCES: ReadonlyArray<Source<unknown>> = [health, indexApi, info, platform, evm, proposervm, admin];
