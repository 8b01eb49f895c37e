/** Vitest global setup: nothing to prepare before the workers start (each worker migrates its own database). */
export default function setup(): void {}
