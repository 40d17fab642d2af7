// Why the settings were refused: every problem found, each naming where its value came from
// (GATEWAY_PORT, or port (config) / GATEWAY_PORT), so that one start reports them all.

export interface SettingProblem {
  /** The variable or config key, as a person would look for it. */
  readonly setting: string;
  readonly problem: string;
}

export class SettingsError extends Error {
  readonly problems: readonly SettingProblem[];

  /** One line per problem: "Invalid setting GATEWAY_PORT: must be a whole number, got ...". */
  constructor(setting: string, problem: string, others: readonly SettingProblem[] = []) {
    const problems = [{ setting, problem }, ...others];
    super(problems.map((p) => `Invalid setting ${p.setting}: ${p.problem}`).join('\n'));
    this.name = 'SettingsError';
    this.problems = problems;
  }

  /** The first problem's setting. */
  get setting(): string {
    return this.problems[0]!.setting;
  }

  static of(problems: readonly SettingProblem[]): SettingsError {
    const [first, ...others] = problems;
    if (!first) throw new Error('SettingsError.of needs a problem');
    return new SettingsError(first.setting, first.problem, others);
  }
}
