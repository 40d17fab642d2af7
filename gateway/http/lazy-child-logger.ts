// A request's logger, made only when needed. pino's child() serializes its bindings as it is made,
// and Fastify makes one for every request, though most requests write nothing but their request
// line (none at warn): about 3 µs of a decision's CPU in the profile (BENCHMARKS.md). So a line of
// fields (the request line, an audit line) is written by the parent with the bindings first among
// its fields, which pino writes exactly as a child's line; any other line (an error, a message
// alone), a child of it or a level set on it makes the child.
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
  // A child with options of its own (a route's logLevel or logSerializers) cannot be judged or
  // written by its parent: made at once.
  const aware = parent as Partial<LevelAwareLogger>;
  if (Object.keys(options).length > 0 || typeof aware.isLevelEnabled !== 'function') return parent.child(bindings(), options);
  return new LazyChildLogger(parent as LevelAwareLogger, bindings, options);
}

class LazyChildLogger implements LevelAwareLogger {
  #made: FastifyBaseLogger | undefined;
  #bound: Bindings | undefined;
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
    return (this.#made ??= this.parent.child(this.boundFields(), this.options));
  }

  /** Writes a line: through the parent while no child is made and the line is plain fields, else through the child. */
  write(level: Level, args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    const [fields] = args;
    if (this.#made === undefined && isPlainObject(fields)) {
      args[0] = { ...this.boundFields(), ...fields };
      Reflect.apply(this.parent[level], this.parent, args);
      return;
    }
    const made = this.made();
    Reflect.apply(made[level], made, args);
  }

  private boundFields(): Bindings {
    return (this.#bound ??= this.bindings());
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const) {
  LazyChildLogger.prototype[level] = function (this: LazyChildLogger, ...args: unknown[]) {
    this.write(level, args);
  };
}
LazyChildLogger.prototype.silent = () => {};
