import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Logger } from 'pino';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { ApiKeyChangesChannel } from './api-key-changes.channel';
import { ProjectRepository } from './project.repository';
import { UnknownKeyLookupBudget } from './unknown-key-lookup-budget';

/** How often the index is read again in full: the longest a key created while Redis lost its announcement is unknown. */
const RELOAD_INTERVAL_MS = 30_000;
const RETRY_AFTER_FAILED_LOAD_MS = 1_000;

/** Whether a key not verified from memory is worth a database lookup. */
export type LookupAdmission = 'look-up' | 'refuse' | 'unavailable';

/**
 * The hashes of every active API key, in this process's memory (32 bytes of hex per key), so a wrong key is refused
 * without a query and without counting anything per client address: a flood of wrong keys, from any number of
 * addresses, can neither cost the database a query each nor stand between a valid key and its lookup. Kept current by
 * the announcements of creations and revocations, a full reload whenever announcements may have been missed, and every
 * 30 s. Keys it does not hold are still looked up within a small budget per process (a key created elsewhere an instant
 * ago), so a stale index costs at most that budget, never a valid key's answer while the budget lasts.
 */
@Injectable()
export class ActiveKeyIndex implements OnApplicationBootstrap, OnModuleDestroy {
  private hashes: Set<string> | null = null;
  // changes announced while a load runs: its snapshot may predate them
  private changedDuringLoad: Map<string, 'created' | 'revoked'> | null = null;
  private loading: Promise<void> | null = null;
  private isReloadRequested = false;
  private isClosed = false;
  private timer?: NodeJS.Timeout;
  private readonly unknownKeyLookups: UnknownKeyLookupBudget;
  private readonly isServingApi: boolean;
  private readonly logger: Logger;

  constructor(
    private readonly repository: ProjectRepository,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(ROOT_LOGGER) rootLogger: Logger,
    changes: ApiKeyChangesChannel,
  ) {
    this.unknownKeyLookups = new UnknownKeyLookupBudget(config.authFailuresPerMinute);
    this.isServingApi = config.roles.has('api');
    this.logger = rootLogger.child({ context: 'active-key-index' });
    changes.onChange((change) => {
      if (change.kind === 'maybe-missed') void this.reload();
      else this.record(change.kind, change.keyHash);
    });
  }

  /**
   * `look-up` for a key the index holds, and for others while the budget lasts; `refuse` for a key it does not hold
   * once the budget is spent; `unavailable` when the index was never loaded (the database unreachable since boot) and
   * the budget is spent: the key cannot be judged right now.
   */
  admit(keyHash: string): LookupAdmission {
    if (this.hashes?.has(keyHash)) return 'look-up';
    if (this.unknownKeyLookups.tryTake()) return 'look-up';
    return this.hashes ? 'refuse' : 'unavailable';
  }

  /** What a lookup found: the database's answer corrects the index either way. */
  record(kind: 'created' | 'revoked', keyHash: string) {
    if (kind === 'created') this.hashes?.add(keyHash);
    else this.hashes?.delete(keyHash);
    this.changedDuringLoad?.set(keyHash, kind);
  }

  async onApplicationBootstrap() {
    if (this.isServingApi) await this.reload();
  }

  /** One load at a time; asked again while one runs, another follows it (the first snapshot may predate the reason). */
  private reload(): Promise<void> {
    if (this.isClosed || !this.isServingApi) return Promise.resolve();
    if (this.loading) {
      this.isReloadRequested = true;
      return this.loading;
    }
    this.loading = this.loadOnce().finally(() => {
      this.loading = null;
      if (this.isReloadRequested) {
        this.isReloadRequested = false;
        void this.reload();
      }
    });
    return this.loading;
  }

  private async loadOnce() {
    clearTimeout(this.timer);
    const changed = new Map<string, 'created' | 'revoked'>();
    this.changedDuringLoad = changed;
    let nextLoadInMs = RELOAD_INTERVAL_MS;
    try {
      const loaded = new Set(await this.repository.listActiveKeyHashes());
      for (const [keyHash, kind] of changed) {
        if (kind === 'created') loaded.add(keyHash);
        else loaded.delete(keyHash);
      }
      this.hashes = loaded;
    } catch (error) {
      nextLoadInMs = RETRY_AFTER_FAILED_LOAD_MS;
      this.logger.warn({ err: (error as Error).message }, 'could not load the active API keys; keys are looked up within the budget');
    } finally {
      this.changedDuringLoad = null;
    }
    if (!this.isClosed) this.timer = setTimeout(() => void this.reload(), nextLoadInMs).unref();
  }

  onModuleDestroy() {
    this.isClosed = true;
    clearTimeout(this.timer);
  }
}
