/** The part of autocannon's programmatic API the benchmark uses (the package ships no types). */
declare module 'autocannon' {
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    timeout?: number;
    /** Requests per second over all connections (default: as fast as the server answers). */
    overallRate?: number;
  }
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
    max: number;
    /** Completed requests (on `requests`). */
    total: number;
  }
  interface Result {
    latency: Histogram;
    requests: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
