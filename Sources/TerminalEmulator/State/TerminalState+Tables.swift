extension TerminalState {
  /// Styles held before the first collection, and the least a table may grow to after one.
  /// Small on purpose: with one-off truecolour styles every SGR interns a new entry, and a
  /// table that outgrows the core's cache turns each intern into two cache misses (dense
  /// truecolour output ran 114 MiB/s at 80×24 with 65,536 entries held).
  static let styleTableMinimum = 1 << 12
  /// The most a collection's pass over the cells waits for, however many cells there are.
  static let styleTableLimit = 1 << 16
  static let clusterTableLimit = 1 << 16
  static let hyperlinkTableLimit = 1 << 14

  /// Frees the interned styles, clusters and hyperlinks no cell refers to any more, once a
  /// table passes its limit. Keeps memory bounded under hostile streams (endless new RGB
  /// colours, unique hyperlinks, random combining marks). Cost: one reading pass over all
  /// cells, amortised over the growth; no id is renumbered and no cell rewritten (the tables
  /// hand freed ids out again), so the pass is the whole cost.
  ///
  /// After a collection the next one waits until a table holds twice what survived (or the
  /// base limit, whichever is more): when the scrollback keeps more entries alive than the
  /// limit, a fixed limit would make every new entry pay a pass over all cells; doubling makes
  /// the cost linear in the entries created, and a table never holds more than twice what
  /// the cells can reference. The style table's base limit follows the number of cells
  /// (between `styleTableMinimum` and `styleTableLimit`): a pass over the cells is paid for by
  /// at least half as many new styles.
  ///
  /// The pass marks the styles in use always (they name the links in use) and the clusters
  /// only when their table is over its limit; each table over its limit is collected, and the
  /// links with the styles (freeing a style can free the link it named).
  mutating func collectTablesIfNeeded() {
    let stylesOver = styles.heldCount > collectionThresholds.styles
    let linksOver = hyperlinks.heldCount > collectionThresholds.hyperlinks
    let clustersOver = clusters.heldCount > collectionThresholds.clusters
    guard stylesOver || linksOver || clustersOver else { return }
    collectTables(styles: stylesOver, hyperlinks: stylesOver || linksOver, clusters: clustersOver)
    collectionThresholds = TableThresholds(
      styles: max(styleBaseLimit, 2 * styles.heldCount),
      clusters: max(TerminalState.clusterTableLimit, 2 * clusters.heldCount),
      hyperlinks: max(TerminalState.hyperlinkTableLimit, 2 * hyperlinks.heldCount))
  }

  /// Frees the ids of the chosen tables that nothing holds (see `collectTablesIfNeeded`): one
  /// reading pass over both screens, their scrollback, deferred and compacted history for the
  /// styles (and clusters) in use; the pen's style is in use, and the links of saved pens.
  mutating func collectTables(
    styles collectStyles: Bool, hyperlinks collectLinks: Bool, clusters collectClusters: Bool
  ) {
    // Ids are dense: which are used is an array of flags indexed by id (sets and dictionaries
    // hashed every cell).
    var usedStyle = [Bool](repeating: false, count: styles.count)
    usedStyle[0] = true
    usedStyle[Int(cursor.penID)] = true
    var usedCluster = [Bool](repeating: false, count: collectClusters ? clusters.count : 0)
    usedStyle.withUnsafeMutableBufferPointer { usedStyle in
      if collectClusters {
        usedCluster.withUnsafeMutableBufferPointer { usedCluster in
          forEachHeldCell { cell in
            usedStyle[Int(cell.style)] = true
            if cell.isCluster { usedCluster[Int(cell.payload)] = true }
          }
        }
      } else {
        forEachHeldCell { cell in usedStyle[Int(cell.style)] = true }
      }
    }
    if collectLinks {
      // Link ids are dense too (1…count; 0 is no link).
      var usedLink = [Bool](repeating: false, count: hyperlinks.count + 1)
      styles.withStyles { all in
        for id in all.indices where usedStyle[id] { usedLink[Int(all[id].hyperlink)] = true }
      }
      for pen in [cursor.pen, savedCursor?.pen, inactiveSavedCursor?.pen] {
        if let pen { usedLink[Int(pen.hyperlink)] = true }
      }
      hyperlinks.collect(keeping: usedLink)
    }
    if collectStyles { styles.collect(keeping: usedStyle) }
    if collectClusters { clusters.collect(keeping: usedCluster) }
    tableGeneration &+= 1
  }

  /// Calls `body` with every cell the state holds — both screens with their scrollback, their
  /// deferred history and their compacted history — in no particular order: the reading pass
  /// of collecting the tables. Inlined so that each caller's loop is its own, with `body` in
  /// it (a call per cell would cost more than the pass's work).
  @inline(__always)
  func forEachHeldCell(_ body: (Cell) -> Void) {
    for grid in [screen, inactive] {
      grid.cells.withUnsafeBufferPointer { cells in
        for cell in cells { body(cell) }
      }
      grid.deferred.forEachCell(body)
      grid.compact.forEachCell(body)
    }
  }

  /// The style table's base limit for the cells held now (screen, scrollback, other screen).
  var styleBaseLimit: Int {
    min(
      max(
        screen.cells.count + inactive.cells.count + primary.compact.cellCapacity,
        TerminalState.styleTableMinimum),
      TerminalState.styleTableLimit)
  }
}

/// When the interned tables are next collected (sizes past which `collectTablesIfNeeded` acts).
struct TableThresholds: Sendable, Equatable {
  var styles = TerminalState.styleTableMinimum
  var clusters = TerminalState.clusterTableLimit
  var hyperlinks = TerminalState.hyperlinkTableLimit
}
