// A request's logger, made when it first writes a line. pino's child() serializes its bindings as
// it is made, and Fastify makes one for every request; at the levels a gateway runs at, most
// requests write nothing but their request line (none at warn), so most children were made for
// nothing (about 3 µs of a decision's CPU in the profile; BENCHMARKS.md).
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString, LogFn } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** A logger that can say whether a level is on (pino's). */
interface LevelAwareLogger extends FastifyBaseLogger {
  isLevelEnabled(level: string): boolean;
}

/** Whether `log` writes lines of `level`; true for a logger that cannot say. */
export function levelEnabled(log: FastifyBaseLogger, level: Level): boolean {
  const aware = log as Partial<LevelAwareLogger>;
  return typeof aware.isLevelEnabled === 'function' ? aware.isLevelEnabled(level) : true;
}

/** `parent.child(bindings(), options)`, made on the first line written at an enabled level. */
export function lazyChildLogger(parent: FastifyBaseLogger, bindings: () => Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  // A child with a level of its own (a route's logLevel) cannot be judged by its parent's level.
  const aware = parent as Partial<LevelAwareLogger>;
  if (options.level !== undefined || typeof aware.isLevelEnabled !== 'function') return parent.child(bindings(), options);
  return new LazyChildLogger(parent as LevelAwareLogger, bindings, options);
}

class LazyChildLogger implements LevelAwareLogger {
  #made: FastifyBaseLogger | undefined;
  declare fatal: LogFn;
  declare error: LogFn;
  declare warn: LogFn;
  declare info: LogFn;
  declare debug: LogFn;
  declare trace: LogFn;
  declare silent: LogFn;

  constructor(
    private readonly parent: LevelAwareLogger,
    private readonly bindings: () => Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get level(): LevelWithSilentOrString {
    return (this.#made ?? this.parent).level;
  }

  set level(level: LevelWithSilentOrString) {
    this.made().level = level;
  }

  isLevelEnabled(level: string): boolean {
    return levelEnabled(this.#made ?? this.parent, level as Level);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.made().child(bindings, options);
  }

  made(): FastifyBaseLogger {
    return (this.#made ??= this.parent.child(this.bindings(), this.options));
  }
}

for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const) {
  LazyChildLogger.prototype[level] = function (this: LazyChildLogger, ...args: unknown[]) {
    if (!this.isLevelEnabled(level)) return;
    const made = this.made();
    Reflect.apply(made[level], made, args);
  };
}
LazyChildLogger.prototype.silent = () => {};
