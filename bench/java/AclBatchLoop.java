import java.io.FileInputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/** The anchor for bench/apply_throughput.py: N creates in batches of 2,000, then N concrete deletes in batches of 200. */
public class AclBatchLoop {
    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        try (FileInputStream in = new FileInputStream(args[1])) {
            props.load(in);
        }
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "120000");
        String prefix = args[2];
        int principals = Integer.parseInt(args[3]);
        int topics = Integer.parseInt(args[4]);
        List<AclBinding> all = new ArrayList<>();
        for (int i = 0; i < principals; i++) {
            for (int j = 0; j < topics; j++) {
                all.add(new AclBinding(new ResourcePattern(ResourceType.TOPIC, prefix + "t" + j, PatternType.LITERAL),
                    new AccessControlEntry("User:" + prefix + i, "*", AclOperation.READ, AclPermissionType.ALLOW)));
            }
        }
        try (Admin admin = Admin.create(props)) {
            long t0 = System.nanoTime();
            for (int i = 0; i < all.size(); i += 2000) {
                admin.createAcls(all.subList(i, Math.min(all.size(), i + 2000))).all().get();
            }
            long t1 = System.nanoTime();
            for (int i = 0; i < all.size(); i += 200) {
                List<AclBindingFilter> filters = new ArrayList<>();
                for (AclBinding b : all.subList(i, Math.min(all.size(), i + 200))) {
                    filters.add(b.toFilter());
                }
                admin.deleteAcls(filters).all().get();
            }
            long t2 = System.nanoTime();
            System.out.printf("RESULT create %.3f delete %.3f%n", (t1 - t0) / 1e9, (t2 - t1) / 1e9);
        }
    }
}
