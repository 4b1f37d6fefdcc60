/// Where Prometheus finds the daemon's metrics: the gateway serves them at `GET /metrics`
/// (docs/troubleshooting.md, Metrics). The doctor cannot tell where the gateway listens, so it
/// prints, as guidance, a scrape config to adapt.
extension DoctorReport {
    /// A `scrape_configs` entry: the target is the gateway's `--http` address, and the token
    /// one made with `scanbridge tokens create` (any role reads metrics), kept in a file.
    static let scrapeConfig = """
        scrape_configs:
          - job_name: scanbridge
            metrics_path: /metrics
            scheme: http  # https when http.tls is configured
            authorization:
              type: Bearer
              credentials_file: /etc/prometheus/scanbridge.token
            static_configs:
              - targets: ["127.0.0.1:8765"]  # the gateway's --http ADDRESS:PORT
        """

    var metricsLines: [String] {
        [
            row(
                "metrics",
                "served by the gateway at GET /metrics (--http ADDRESS:PORT, a token of any role);"
                    + " a Prometheus scrape config to adapt:")
        ] + Self.scrapeConfig.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
    }
}
