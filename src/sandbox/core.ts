// Everything one running sandbox holds, shared by the API and the admin endpoints.

import { RESOURCES } from '../resources.js';
import { generateSeedData, ownerOf } from './data.js';
import { Lockout, SlidingWindow, type Clock } from './limits.js';
import { buildHtml, buildOpenApi } from './openapi.js';
import { RequestLog } from './requestlog.js';
import { loadState, saveState } from './state-file.js';
import { Store } from './collections.js';
import { TokenStore } from './token-store.js';
import type { JsonObject } from './exact-json.js';

export interface SandboxSettings {
  rateLimit: number;
  windowSeconds: number;
  pageSize: number;
  lockoutAfter: number;
  lockoutSeconds: number;
  seed: number;
  stateFile?: string;
}

const START_TOKEN_NAME = 'sandbox';

export class SandboxCore {
  readonly store: Store;
  readonly tokens: TokenStore;
  readonly window: SlidingWindow;
  readonly lockout: Lockout;
  readonly log = new RequestLog();
  readonly openApi: string;
  readonly html: string;
  readonly seed: number;
  /** The person the start token, and by default every admin-created token, acts as. */
  readonly owner: string | null;
  /** The full start token: printed once at start, never stored. */
  readonly startToken: string;

  constructor(
    readonly settings: SandboxSettings,
    clock: Clock,
  ) {
    const saved = settings.stateFile ? loadState(settings.stateFile) : undefined;
    this.seed = saved?.seed ?? settings.seed;
    const data = saved?.data ?? generateSeedData(this.seed);
    // What a state file holds beyond the seed was added by earlier runs, and counts as added.
    const seeded = saved ? generateSeedData(this.seed) : data;
    const seedIds = new Set(Object.entries(seeded).flatMap(([name, objects]) => objects.map((o) => `${name}\u0000${String(o.publicId)}`)));
    this.store = new Store(
      RESOURCES.map((r) => r.name),
      data,
      (name, id) => seedIds.has(`${name}\u0000${id}`),
    );
    this.tokens = new TokenStore(saved?.tokens ?? []);
    this.owner = ownerOf(data) ?? null;
    // Only hashes are saved, so the start token cannot be shown again after a restart: each
    // start replaces the previous "sandbox" token with a new one. Other tokens live on.
    this.tokens.revoke(START_TOKEN_NAME);
    this.startToken = this.tokens.create(START_TOKEN_NAME, this.owner).token;
    this.save();

    this.window = new SlidingWindow(settings.rateLimit, settings.windowSeconds * 1000, clock);
    this.lockout = new Lockout(settings.lockoutAfter, settings.lockoutSeconds * 1000, clock);

    // The reference describes the seeded fields, whatever was planted or created since.
    const samples = new Map<string, JsonObject>();
    for (const r of RESOURCES) {
      const first = seeded[r.name]?.[0];
      if (first) samples.set(r.name, first);
    }
    this.openApi = buildOpenApi(samples, settings.rateLimit, settings.windowSeconds);
    this.html = buildHtml(settings.rateLimit, settings.windowSeconds);
  }

  /** Writes the state file, if there is one; called after every change. */
  save(): void {
    if (this.settings.stateFile) saveState(this.settings.stateFile, this.seed, this.tokens.records(), this.store);
  }
}

