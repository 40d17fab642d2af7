// A request's logger, made only when needed. pino's child() serializes its bindings as it is made,
// and Fastify makes one for every request, though at warn most requests write nothing: about 3 µs of
// a decision's CPU in the profile (BENCHMARKS.md). Level checks go to the parent until a line is
// written; the first line, a child of it or a level set on it makes the child. (Writing a line of
// fields through the parent with the bindings merged in, to make no child at all, measured slower:
// 6.8 µs a line against 1.9 for making the child and writing through it.)
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

/** `parent.child(bindings(), options)`, or what writes as it would (see above). */
export function lazyChildLogger(parent: FastifyBaseLogger, bindings: () => Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  // A child with options of its own (a route's logLevel or logSerializers) cannot have its levels
  // judged by its parent: made at once.
  const aware = parent as Partial<LevelAwareLogger>;
  if (Object.keys(options).length > 0 || typeof aware.isLevelEnabled !== 'function') return parent.child(bindings(), options);
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

  /** Writes a line through the child, made for its first line; a line below the level makes nothing. */
  write(level: Level, args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    const made = this.made();
    Reflect.apply(made[level], made, args);
  }
}

for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const) {
  LazyChildLogger.prototype[level] = function (this: LazyChildLogger, ...args: unknown[]) {
    this.write(level, args);
  };
}
LazyChildLogger.prototype.silent = () => {};
