import java.io.FileInputStream;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;

/** The anchor for bench/describe_topics.py: every topic described with its authorized operations. */
public class DescribeTopics {
    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        try (FileInputStream in = new FileInputStream(args[1])) {
            props.load(in);
        }
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        try (Admin admin = Admin.create(props)) {
            Set<String> names = admin.listTopics().names().get();
            Map<String, TopicDescription> all = admin.describeTopics(names,
                new DescribeTopicsOptions().includeAuthorizedOperations(true)).allTopicNames().get();
            StringBuilder out = new StringBuilder();
            for (TopicDescription d : all.values()) {
                out.append(d.name()).append('\t').append(d.partitions().size()).append('\t')
                   .append(d.authorizedOperations()).append('\n');
            }
            System.out.print(out);
        }
    }
}
