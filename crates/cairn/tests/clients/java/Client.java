// Drives Cairn's SQL front end with MySQL Connector/J and server-side prepared statements
// (useServerPrepStmts=true): DDL, inserts and reads through prepared statements with several
// parameter types, batches, an update and a delete, a transaction rolled back and one committed,
// an error with its MySQL error number, and a prepared statement whose table is dropped and
// made again. Prints "ok" and exits 0 when every check holds.
// Usage: java -cp lib/*:. Client HOST:PORT
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

public class Client {
    static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("check failed: " + what);
        }
    }

    public static void main(String[] args) throws Exception {
        String url = "jdbc:mysql://" + args[0] + "/?useServerPrepStmts=true&cachePrepStmts=true"
                + "&useSSL=false&allowPublicKeyRetrieval=true&connectTimeout=10000";
        try (Connection c = DriverManager.getConnection(url, "root", "")) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE jdbc");
                s.execute("USE jdbc");
                s.execute("CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, "
                        + "k BIGINT NOT NULL, name VARCHAR(40), price DECIMAL(10,2), KEY k (k))");
            }
            try (PreparedStatement p = c.prepareStatement(
                    "INSERT INTO t (k, name, price) VALUES (?, ?, ?)",
                    Statement.RETURN_GENERATED_KEYS)) {
                for (int i = 1; i <= 20; i++) {
                    p.setLong(1, i % 5);
                    if (i == 7) {
                        p.setNull(2, java.sql.Types.VARCHAR);
                    } else {
                        p.setString(2, "name-" + i);
                    }
                    p.setBigDecimal(3, new BigDecimal(i + ".25"));
                    check(p.executeUpdate() == 1, "insert " + i);
                    try (ResultSet keys = p.getGeneratedKeys()) {
                        check(keys.next() && keys.getInt(1) == i, "generated key " + i);
                    }
                }
            }
            try (PreparedStatement p = c.prepareStatement("SELECT name, price, k FROM t WHERE id = ?")) {
                p.setInt(1, 3);
                try (ResultSet r = p.executeQuery()) {
                    check(r.next(), "row 3 found");
                    check("name-3".equals(r.getString(1)), "name of 3: " + r.getString(1));
                    check(new BigDecimal("3.25").equals(r.getBigDecimal(2)), "price of 3");
                    check(r.getLong(3) == 3, "k of 3");
                    check(!r.next(), "one row");
                }
                p.setInt(1, 7);
                try (ResultSet r = p.executeQuery()) {
                    check(r.next() && r.getString(1) == null && r.wasNull(), "NULL name of 7");
                }
                p.setInt(1, 999);
                try (ResultSet r = p.executeQuery()) {
                    check(!r.next(), "no row 999");
                }
            }
            try (PreparedStatement p = c.prepareStatement(
                    "SELECT COUNT(*), SUM(price) FROM t WHERE k = ? AND id BETWEEN ? AND ?")) {
                p.setLong(1, 2);
                p.setInt(2, 1);
                p.setInt(3, 20);
                try (ResultSet r = p.executeQuery()) {
                    check(r.next(), "aggregate row");
                    check(r.getLong(1) == 4, "count k=2: " + r.getLong(1));
                    check(new BigDecimal("39.00").equals(r.getBigDecimal(2)), "sum: " + r.getBigDecimal(2));
                }
            }
            try (PreparedStatement p = c.prepareStatement(
                    "SELECT id FROM t WHERE name LIKE ? ORDER BY id DESC LIMIT ?")) {
                p.setString(1, "name-1%");
                p.setInt(2, 3);
                try (ResultSet r = p.executeQuery()) {
                    int[] want = {19, 18, 17};
                    for (int w : want) {
                        check(r.next() && r.getInt(1) == w, "ordered id " + w);
                    }
                    check(!r.next(), "limit 3");
                }
            }
            try (PreparedStatement p = c.prepareStatement("UPDATE t SET price = price + ? WHERE k = ?")) {
                p.setBigDecimal(1, new BigDecimal("1.00"));
                p.setLong(2, 0);
                // Connector/J sets CLIENT_FOUND_ROWS: matched rows.
                check(p.executeUpdate() == 4, "update k=0");
            }
            c.setAutoCommit(false);
            try (PreparedStatement p = c.prepareStatement("DELETE FROM t WHERE id = ?")) {
                p.setInt(1, 1);
                check(p.executeUpdate() == 1, "delete 1 in a transaction");
            }
            c.rollback();
            try (PreparedStatement p = c.prepareStatement("DELETE FROM t WHERE id = ?")) {
                p.setInt(1, 2);
                p.addBatch();
                p.setInt(1, 4);
                p.addBatch();
                int[] counts = p.executeBatch();
                check(counts.length == 2 && counts[0] == 1 && counts[1] == 1, "batch delete");
            }
            c.commit();
            c.setAutoCommit(true);
            try (Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT COUNT(*), MIN(id) FROM t")) {
                check(r.next() && r.getInt(1) == 18 && r.getInt(2) == 1, "after transactions");
            }
            try (PreparedStatement p = c.prepareStatement("INSERT INTO t (id, k) VALUES (?, ?)")) {
                p.setInt(1, 3);
                p.setLong(2, 1);
                p.executeUpdate();
                check(false, "duplicate key accepted");
            } catch (SQLException e) {
                check(e.getErrorCode() == 1062, "duplicate key error " + e.getErrorCode());
            }
            // A prepared statement outlives its table: dropped and made again with another
            // schema, the next execute plans again and reads the new table.
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t2 (id INT PRIMARY KEY, v INT)");
                s.execute("INSERT INTO t2 VALUES (1, 10)");
            }
            try (PreparedStatement p = c.prepareStatement("SELECT v FROM t2 WHERE id = ?")) {
                p.setInt(1, 1);
                try (ResultSet r = p.executeQuery()) {
                    check(r.next() && r.getInt(1) == 10, "t2 before");
                }
                try (Statement s = c.createStatement()) {
                    s.execute("DROP TABLE t2");
                    s.execute("CREATE TABLE t2 (v INT, id INT PRIMARY KEY)");
                    s.execute("INSERT INTO t2 VALUES (20, 1)");
                }
                try (ResultSet r = p.executeQuery()) {
                    check(r.next() && r.getInt(1) == 20, "t2 made again");
                }
            }
            try (Statement s = c.createStatement()) {
                s.execute("DROP DATABASE jdbc");
            }
        }
        System.out.println("ok");
    }
}
