// Whether this process is stopping. /readyz reports it at once, so that load balancers which probe
// readiness stop sending new work while the process still answers what reaches it.
export class Lifecycle {
  #draining = false;

  get draining(): boolean {
    return this.#draining;
  }

  startDraining(): void {
    this.#draining = true;
  }
}
