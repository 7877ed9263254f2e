extension TerminalState {
  /// Styles held before the first compaction, and the least a table may grow to after one.
  /// Small on purpose: with one-off truecolour styles every SGR interns a new entry, and a
  /// table that outgrows the core's cache turns each intern into two cache misses (dense
  /// truecolour output ran 114 MiB/s at 80×24 with 65,536 entries held).
  static let styleTableMinimum = 1 << 12
  /// The most a compaction's pass over the cells waits for, however many cells there are.
  static let styleTableLimit = 1 << 16
  static let clusterTableLimit = 1 << 16
  static let hyperlinkTableLimit = 1 << 14

  /// Drops interned styles, clusters and hyperlinks no cell refers to any more, once a table
  /// passes its limit. Keeps memory bounded under hostile streams (endless new RGB colours,
  /// unique hyperlinks). Cost: one pass over all cells, amortised over the growth.
  ///
  /// After a compaction the next one waits until a table holds twice what survived (or the
  /// base limit, whichever is more): when the scrollback keeps more entries alive than the
  /// limit, a fixed limit would make every new entry pay a pass over all cells; doubling makes
  /// the cost linear in the entries created, and a table never holds more than twice what
  /// the cells can reference. The style table's base limit follows the number of cells
  /// (between `styleTableMinimum` and `styleTableLimit`): a pass over the cells is paid for by
  /// at least half as many new styles, and a small screen keeps a table that fits in cache.
  ///
  /// When only the cluster table is past its limit (text in scripts with marks, where nearly
  /// every letter makes a cluster, and styles stay few) its unused ids are collected rather
  /// than compacted: freed for new clusters, the others unchanged, so the pass over the cells
  /// only reads them (rewriting every cell was half of the compaction's time).
  ///
  /// Likewise when only the hyperlink table is past its limit (`ls --hyperlink`, where nearly
  /// every name is a new link): unused links are collected — the pass over the cells only
  /// reads which styles are in use — instead of renumbering styles and rewriting every cell.
  mutating func compactTablesIfNeeded() {
    let stylesOver = styles.count > compactionThresholds.styles
    let linksOver = hyperlinks.heldCount > compactionThresholds.hyperlinks
    let clustersOver = clusters.heldCount > compactionThresholds.clusters
    guard stylesOver || linksOver || clustersOver else { return }
    if stylesOver {
      compactTables()
    } else {
      if linksOver { collectHyperlinks() }
      if clustersOver { collectClusters() }
    }
    compactionThresholds = TableThresholds(
      styles: max(styleBaseLimit, 2 * styles.count),
      clusters: max(TerminalState.clusterTableLimit, 2 * clusters.heldCount),
      hyperlinks: max(TerminalState.hyperlinkTableLimit, 2 * hyperlinks.heldCount))
  }

  /// Frees the hyperlink ids no used style and no pen names (see `compactTablesIfNeeded`):
  /// one reading pass over both screens, their scrollback and their deferred history for the
  /// styles in use; styles and cells are left as they are.
  mutating func collectHyperlinks() {
    var usedStyle = [Bool](repeating: false, count: styles.count)
    usedStyle.withUnsafeMutableBufferPointer { used in
      forEachHeldCell { cell in used[Int(cell.style)] = true }
    }
    var usedLink = [Bool](repeating: false, count: hyperlinks.count + 1)
    styles.withStyles { all in
      for id in all.indices where usedStyle[id] { usedLink[Int(all[id].hyperlink)] = true }
    }
    for pen in [cursor.pen, savedCursor?.pen, inactiveSavedCursor?.pen] {
      if let pen { usedLink[Int(pen.hyperlink)] = true }
    }
    hyperlinks.collect(keeping: usedLink)
  }

  /// Frees the cluster ids no cell holds (see `compactTablesIfNeeded`): one reading pass over
  /// both screens, their scrollback and their deferred history.
  mutating func collectClusters() {
    var used = [Bool](repeating: false, count: clusters.count)
    used.withUnsafeMutableBufferPointer { used in
      forEachHeldCell { cell in
        if cell.isCluster { used[Int(cell.payload)] = true }
      }
    }
    clusters.collect(keeping: used)
  }

  /// Calls `body` with every cell the state holds — both screens with their scrollback, their
  /// deferred history and their compacted history — in no particular order: the reading pass
  /// of collecting and compacting the tables. Inlined so that each caller's loop is its own,
  /// with `body` in it (a call per cell would cost more than the pass's work).
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

  mutating func compactTables() {
    // Style ids are dense: which are used, and their new ids, are arrays indexed by the old
    // id (sets and dictionaries hashed every cell; with truecolour output, where nearly every
    // SGR makes a new style, compaction was a quarter of the time).
    var usedStyle = [Bool](repeating: false, count: styles.count)
    usedStyle[0] = true
    usedStyle[Int(cursor.penID)] = true
    var usedCluster = [Bool](repeating: false, count: clusters.count)
    usedStyle.withUnsafeMutableBufferPointer { usedStyle in
      usedCluster.withUnsafeMutableBufferPointer { usedCluster in
        forEachHeldCell { cell in
          usedStyle[Int(cell.style)] = true
          if cell.isCluster { usedCluster[Int(cell.payload)] = true }
        }
      }
    }
    var extraStyles: [Style] = [cursor.pen]
    for saved in [savedCursor, inactiveSavedCursor].compactMap({ $0 }) { extraStyles.append(saved.pen) }
    // Hyperlinks still referenced by a used style or a saved pen.
    // Link ids are dense too (1…count; 0 is no link): an array of flags, indexed by id.
    var usedLink = [Bool](repeating: false, count: hyperlinks.count + 1)
    var keptCount = 0
    styles.withStyles { old in
      for id in old.indices where usedStyle[id] {
        keptCount += 1
        usedLink[Int(old[id].hyperlink)] = true
      }
    }
    for s in extraStyles { usedLink[Int(s.hyperlink)] = true }
    let linkRemap = hyperlinks.compact(keeping: usedLink)

    let clusterRemap = clusters.compact(keeping: usedCluster)
    // The surviving styles, in order, with their renumbered hyperlinks, in a table of their
    // own: appended, not interned again (ids are names; the survivors need no deduplication).
    var rebuilt = StyleTable()
    rebuilt.reserveCapacity(max(styleBaseLimit, 2 * keptCount) + 1)
    var finalID = [UInt32](repeating: 0, count: usedStyle.count)
    styles.withStyles { old in
      finalID.withUnsafeMutableBufferPointer { finalID in
        for id in old.indices where usedStyle[id] {
          var style = old[id]
          style.hyperlink = linkRemap[Int(style.hyperlink)]
          finalID[id] = rebuilt.append(style)
        }
      }
    }
    styles = rebuilt
    // Blanks stay blank (style 0 keeps id 0), so no line's extent changes.
    func rewrite(_ cells: UnsafeMutableBufferPointer<Cell>) {
      for i in cells.indices {
        let cell = cells[i]
        cells[i].style = finalID[Int(cell.style)]
        if cell.isCluster {
          cells[i].content = (cell.content & ~Cell.scalarMask) | clusterRemap[Int(cell.payload)]
        }
      }
    }
    screen.withMutableCells(rewrite)
    inactive.withMutableCells(rewrite)
    func renumber(_ cell: inout Cell) {
      let old = cell
      cell.style = finalID[Int(old.style)]
      if old.isCluster { cell.content = (old.content & ~Cell.scalarMask) | clusterRemap[Int(old.payload)] }
    }
    for keyPath in [\TerminalState.screen, \TerminalState.inactive] {
      if !self[keyPath: keyPath].deferred.isEmpty { self[keyPath: keyPath].deferred.rewriteCells(renumber) }
      if !self[keyPath: keyPath].compact.isEmpty { self[keyPath: keyPath].rewriteCompactCells(renumber) }
    }
    func relink(_ pen: Style) -> Style {
      var p = pen
      p.hyperlink = linkRemap[Int(pen.hyperlink)]
      return p
    }
    setPen(relink(cursor.pen))
    if let saved = savedCursor { savedCursor?.pen = relink(saved.pen) }
    if let saved = inactiveSavedCursor { inactiveSavedCursor?.pen = relink(saved.pen) }
  }
}

/// When the interned tables are next compacted (sizes past which `compactTablesIfNeeded` acts).
struct TableThresholds: Sendable, Equatable {
  var styles = TerminalState.styleTableMinimum
  var clusters = TerminalState.clusterTableLimit
  var hyperlinks = TerminalState.hyperlinkTableLimit
}
