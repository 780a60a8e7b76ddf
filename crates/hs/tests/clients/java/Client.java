// Drives a HandlerSocket server with hs4j (Maven Central com.googlecode.hs4j:hs4j:0.1), printing
// one line per step; crates/hs/tests/clients.rs compares the lines. Args: host readPort writePort.
import com.google.code.hs4j.FindOperator;
import com.google.code.hs4j.HSClient;
import com.google.code.hs4j.IndexSession;
import com.google.code.hs4j.impl.HSClientImpl;
import java.sql.ResultSet;

public class Client {
    static String rows(ResultSet rs, int columns) throws Exception {
        StringBuilder out = new StringBuilder("[");
        while (rs.next()) {
            out.append(out.length() > 1 ? "," : "").append("[");
            for (int c = 1; c <= columns; c++) {
                out.append(c > 1 ? "," : "").append(rs.getString(c));
            }
            out.append("]");
        }
        return out.append("]").toString();
    }

    public static void main(String[] args) throws Exception {
        String host = args[0];
        HSClient read = new HSClientImpl(host, Integer.parseInt(args[1]));
        String[] cols = {"id", "name", "age"};
        IndexSession r = read.openIndexSession("test", "people", "PRIMARY", cols);
        System.out.println("find= " + rows(r.find(new String[] {"2"}), 3));
        System.out.println("find>= " + rows(r.find(new String[] {"2"}, FindOperator.GE, 2, 0), 3));
        System.out.println("find< " + rows(r.find(new String[] {"3"}, FindOperator.LT, 10, 0), 3));
        IndexSession byAge = read.openIndexSession("test", "people", "iage", new String[] {"age", "name"});
        System.out.println("index> " + rows(byAge.find(new String[] {"34"}, FindOperator.GT, 10, 0), 2));
        read.shutdown();

        HSClient write = new HSClientImpl(host, Integer.parseInt(args[2]));
        IndexSession w = write.openIndexSession("test", "people", "PRIMARY", cols);
        System.out.println("insert " + w.insert(new String[] {"10", "Ken", "41"}));
        System.out.println("after insert " + rows(w.find(new String[] {"10"}), 3));
        System.out.println("update " + w.update(new String[] {"10"}, new String[] {"10", "Kenji", "42"}, FindOperator.EQ));
        System.out.println("after update " + rows(w.find(new String[] {"10"}), 3));
        System.out.println("delete " + w.delete(new String[] {"10"}));
        System.out.println("after delete " + rows(w.find(new String[] {"10"}), 3));
        write.shutdown();
        System.exit(0);
    }
}
