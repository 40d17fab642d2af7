// A policy that cannot be loaded: the message names the file, the route and what is wrong. At
// start it stops the gateway; on reload the running policy is kept.
export class PolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PolicyError';
  }
}
