// The Dockerfile as the deployment test reads it: parsed by dockerfile-ast and linted by
// dockerfile-utils (the parser and the linter of the Dockerfile language server), then split into
// stages with the instructions the test checks.
import { Cmd, Copy, DockerfileParser, Entrypoint, Env, From, Healthcheck, type Instruction } from 'dockerfile-ast';
import { validate } from 'dockerfile-utils';
import { basename, join, normalize } from 'node:path';

/** One instruction's place in its stage, for "this before that" checks. */
interface Step {
  index: number;
}

export interface DockerCopy extends Step {
  /** The stage copied from (--from), or undefined for the build context. */
  from: string | undefined;
  sources: string[];
  destination: string;
}

export interface DockerRun extends Step {
  command: string;
}

export interface DockerStage {
  name: string;
  image: string;
  workdir: string | undefined;
  copies: DockerCopy[];
  runs: DockerRun[];
  env: Record<string, string>;
  /** The last USER of the stage: who runs the container started from it. */
  user: (Step & { name: string }) | undefined;
  exposed: number[];
  /** The health check's command as an argument list (the shell form runs through /bin/sh -c). */
  healthcheck: string[] | undefined;
  cmd: (Step & { argv: string[] }) | undefined;
  entrypoint: string[] | undefined;
}

/** Where a copied source lands, relative to the stage's WORKDIR (into the destination folder when it ends in / or several sources are copied). */
export function landing(copy: DockerCopy, source: string): string {
  const into = copy.sources.length > 1 || copy.destination.endsWith('/');
  return normalize(into ? join(copy.destination, basename(source)) : copy.destination);
}

/** The linter's findings, one line each ("line N: message"); none for a clean Dockerfile. */
export function lintDockerfile(text: string): string[] {
  return validate(text).map(({ range, message }) => `line ${range.start.line + 1}: ${typeof message === 'string' ? message : message.value}`);
}

/** An exec-form (JSON) argument list, or the shell form as /bin/sh -c runs it. */
function argv(instruction: Cmd | Entrypoint): string[] {
  const json = instruction.getJSONStrings();
  return json.length > 0 ? json.map((s) => s.getJSONValue()) : ['/bin/sh', '-c', instruction.getArgumentsContent() ?? ''];
}

function healthcheckArgv(instruction: Healthcheck): string[] {
  const content = (instruction.getArgumentsContent() ?? '').replace(/^CMD\s+/i, '');
  return content.startsWith('[') ? (JSON.parse(content) as string[]) : ['/bin/sh', '-c', content];
}

function addStep(stage: DockerStage, instruction: Instruction, index: number): void {
  const words = instruction.getArguments().map((a) => a.getValue());
  switch (instruction.getKeyword()) {
    case 'WORKDIR':
      stage.workdir = instruction.getArgumentsContent() ?? undefined;
      break;
    case 'COPY': {
      const from = (instruction as Copy).getFromFlag()?.getValue() ?? undefined;
      stage.copies.push({ index, from, sources: words.slice(0, -1), destination: words.at(-1)! });
      break;
    }
    case 'RUN':
      stage.runs.push({ index, command: instruction.getArgumentsContent() ?? '' });
      break;
    case 'ENV':
      for (const property of (instruction as Env).getProperties()) stage.env[property.getName()] = property.getValue() ?? '';
      break;
    case 'USER':
      stage.user = { index, name: words[0]! };
      break;
    case 'EXPOSE':
      stage.exposed.push(...words.map((w) => Number(w.replace(/\/tcp$/, ''))));
      break;
    case 'HEALTHCHECK':
      stage.healthcheck = healthcheckArgv(instruction as Healthcheck);
      break;
    case 'CMD':
      stage.cmd = { index, argv: argv(instruction as Cmd) };
      break;
    case 'ENTRYPOINT':
      stage.entrypoint = argv(instruction as Entrypoint);
      break;
    default:
      break;
  }
}

/** The stages in order, each with the instructions that follow its FROM. */
export function dockerStages(text: string): DockerStage[] {
  const stages: DockerStage[] = [];
  for (const [index, instruction] of DockerfileParser.parse(text).getInstructions().entries()) {
    if (instruction instanceof From) {
      stages.push({
        name: instruction.getBuildStage() ?? String(stages.length),
        image: instruction.getImage() ?? '',
        workdir: undefined,
        copies: [],
        runs: [],
        env: {},
        user: undefined,
        exposed: [],
        healthcheck: undefined,
        cmd: undefined,
        entrypoint: undefined,
      });
    } else if (stages.length > 0) {
      addStep(stages.at(-1)!, instruction, index);
    }
  }
  return stages;
}
