#!/usr/bin/env node
// Runs an example echo upstream on its own: node dist/gateway/examples/echo-main.js NAME PORT
import { startEchoUpstream } from './echo-upstream.js';

const [name = 'example', port = '9000'] = process.argv.slice(2);
const echo = await startEchoUpstream(name, '0.0.0.0', Number(port));
console.log(JSON.stringify({ msg: `EXAMPLE echo upstream "${name}" listening`, url: echo.url }));
